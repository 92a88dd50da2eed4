"""mtdebias: train debiased NMT models and measure their bias checkpoint by checkpoint."""

__version__ = "0.1.0"
