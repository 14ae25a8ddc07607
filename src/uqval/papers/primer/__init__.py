"""Primer paper (P000): synthetic cases A–F (:mod:`.cases`) and figures (:mod:`.figures`)."""
