"""The `lambdafuzz` command line: `main.py` is the group, one module per command."""
