"""Build a contact sheet of the photos taken in 2008 (the SpotOn motivating example)."""
