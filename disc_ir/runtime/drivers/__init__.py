"""Device drivers of the RAL runtime (memory, kernel launch, synchronisation)."""
