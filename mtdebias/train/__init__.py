"""Training: batching (:mod:`.batching`), the schedule (:mod:`.schedule`), the loop (:mod:`.trainer`)."""
