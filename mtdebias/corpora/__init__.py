"""Real parallel corpora read from local installs (SWORD Bible modules), never downloaded."""
