"""Running and building the book: the chapters and profiles (toc), papermill execution with provenance, freshness, the environment page, the HTML build, and the command line (runner)."""
