"""Where results live: the run store (:mod:`.runs`, the only module that joins paths inside a
run directory), atomic writes (:mod:`.atomic`), file locks (:mod:`.locking`) and the checks on
the paths a command writes (:mod:`.outputs`)."""
