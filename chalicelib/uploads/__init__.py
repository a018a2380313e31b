"""Files: direct uploads, presigned bulk uploads and their registration from the upload queue,
the orphan sweep."""
