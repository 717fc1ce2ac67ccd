"""Route uploads to the importer or to quarantine by their key."""
