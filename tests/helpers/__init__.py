"""Helpers shared by the test modules (paths, case files, campaigns, fixtures' data)."""
