"""Reports from stored run results: HTML with embedded plots, Markdown summary, CSV/JSON tables."""

from .build import DEFAULT_HEADLINE, ReportSummary, build_report

__all__ = ["build_report", "ReportSummary", "DEFAULT_HEADLINE"]
