"""The SpotOn/Zest comparison study: run campaigns, then turn their outputs into numbers.

`benchmarks/run.py` is the command line; the modules here are small and separately
testable: `layout` (what runs where), `campaigns` (running them, resumably), `loading`
(reading one run's outputs), `statistics` and `compare` (numbers), `curves` and `plots`
(coverage over executions and time), `tables` and `report` (results.json, report.md),
`allcode` (application plus library coverage by replaying a corpus under coverage.py),
`inprocess` and `handler_timing` (in-process measurements for `benchmarks/throughput.py`).
"""
