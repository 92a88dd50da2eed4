"""Reports from stored run results: HTML with embedded plots, Markdown summary, CSV/JSON tables."""

from .build import ReportSummary, build_report

__all__ = ["build_report", "ReportSummary"]
