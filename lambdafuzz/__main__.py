"""`python -m lambdafuzz` runs the command line."""

from lambdafuzz.cli import main

main()
