"""The SpotOn/Zest comparison study: run campaigns, then turn their outputs into numbers.

`benchmarks/run.py` and `benchmarks/throughput.py` are the command lines; the modules here
are small and separately testable:

* `layout` (what runs where, budgets, seeds), `campaigns` (running them, resumably),
  `loading` (reading one run's outputs);
* `statistics` and `compare` (summaries, Mann-Whitney U, A12, geometric means; the paper's
  common/only-A/only-B table, first-cover times, failure reliability, key arms),
  `results` (all of it as results.json), `tables` and `report` (report.md), `curves` and
  `plots` (coverage over executions and time with 95% bands);
* `allcode` (application plus library coverage by replaying a corpus under coverage.py),
  `inprocess` and `handler_timing` (in-process measurements), `machine` (what ran it).
"""
