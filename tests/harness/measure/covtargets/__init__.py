"""Small modules whose branches the coverage tests exercise arm by arm."""
