"""Print proofs of photo albums."""
