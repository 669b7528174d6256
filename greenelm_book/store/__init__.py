"""The results store (every measured configuration once), the results cache and its cache of record (keyed by the code a computation runs), and the numbers a page shows."""
