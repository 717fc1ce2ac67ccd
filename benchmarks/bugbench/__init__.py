"""The bug benchmark: small handlers, each with one planted data-dependent bug.

Every app folder here is a deployable function (`lambdafuzz.yaml` or a SAM
`template.yaml`), an `expect.yaml` naming its bug and how a campaign's out dir shows it,
and a `trigger.py` whose `benign()` and `trigger()` build a world and an event by hand.
`spec` reads the expectations, `direct` runs a case against moto without a campaign,
`events` builds the events the cases send; `benchmarks/bugbench.py` fuzzes the apps.
"""
