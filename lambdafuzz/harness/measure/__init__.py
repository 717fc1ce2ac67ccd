"""What one test is measured by, inside the worker: branch coverage, cost, caught
exceptions and what the handler printed."""
