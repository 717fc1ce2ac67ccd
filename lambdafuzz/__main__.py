"""`python -m lambdafuzz` runs the command line."""

from lambdafuzz.cli.main import main

main()
