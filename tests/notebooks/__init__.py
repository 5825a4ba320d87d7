"""Contract tests of the course notebooks (notebooks/), run through papermill."""
