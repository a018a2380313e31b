"""Entity search (issue 53): find any entity of a tenant by what people call it.

  fold.py      German as people type it: case, umlauts and ß folded, "str." for "straße"
  texts.py     which fields of each entity type are searched, derived from the entity catalogue
  rows.py      what an index holds and answers, the interface of every engine, the matching rule
  engine.py    the process's engine (PM_ENTITY_SEARCH_ENGINE) and the embedded one, SQLite FTS5
  opensearch_engine.py  the same interface on OpenSearch, the cloud's index
  follow.py    the index follows the change stream (events/stream.py calls it) and is rebuilt
               per tenant (`pmctl search reindex`)
  find.py      a search as a key may see it: only the areas it reads, only its objects' reach,
               ranked exact > prefix > one typo

docs/concepts/search.md describes it for the users of the interface."""
