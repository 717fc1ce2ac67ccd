"""Where tests run: worker processes and their pool (local or Ray), how they start, and
what keeps a handler inside its sandbox (isolation, process groups, the janitor)."""
