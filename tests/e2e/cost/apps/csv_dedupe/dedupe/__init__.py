"""Flag near-duplicate rows of an uploaded contact list before it is imported."""
