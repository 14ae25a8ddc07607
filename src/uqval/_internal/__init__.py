"""Infrastructure shared by the library, not statistics: type aliases (:mod:`.types`), the one
input-check module (:mod:`.checks`), seeds (:mod:`.seeding`) and the one random-stream engine
(:mod:`.streams`), atomic file writes (:mod:`.atomic`), the exception types
(:mod:`.errors`), the one table reader (:mod:`.tables`) and its batched column reader for
large tables (:mod:`.batched`)."""
