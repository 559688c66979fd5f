"""The projection's schema: one place for the table shapes the projection and the appliers share."""

from __future__ import annotations

SCHEMA_VERSION = 5

# Columns of `records`, in Learning field order; list-valued fields are stored as JSON text.
LIST_FIELDS = ("tags", "anchors", "evidence")
COLUMNS = (
    "id", "text", "kind", "store", "category", "description", "tags", "anchors", "evidence",
    "author", "author_name", "source", "session", "valid_from", "valid_to", "recorded_at",
    "retired_at", "confidence", "stability", "layer", "status", "status_reason", "supersedes",
    "superseded_by", "change_condition", "review_cadence_days", "next_review", "importance", "hits",
    "last_used_at", "updated_at", "verified_at",
)  # fmt: skip

SCHEMA = f"""
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE records (
  rowid INTEGER PRIMARY KEY,
  {", ".join(f"{c} {'TEXT UNIQUE NOT NULL' if c == 'id' else ''}" for c in COLUMNS)},
  prior_status TEXT DEFAULT ''
);
CREATE INDEX records_status ON records(status, category);
CREATE TABLE anchors (
  record_id TEXT NOT NULL, path TEXT NOT NULL, symbol TEXT, start_line INTEGER, end_line INTEGER,
  commit_sha TEXT
);
CREATE INDEX anchors_path ON anchors(path);
CREATE INDEX anchors_record ON anchors(record_id);
CREATE VIRTUAL TABLE records_fts USING fts5(text, description, tags, tokenize='porter unicode61');
-- Where each record's ops are: one row per (record, op), partitions by number (a log of a million
-- ops has a million rows here, so they are kept small).
CREATE TABLE parts (no INTEGER PRIMARY KEY, name TEXT UNIQUE NOT NULL);
CREATE TABLE op_index (target TEXT NOT NULL, part INTEGER NOT NULL, offset INTEGER NOT NULL,
  clock INTEGER NOT NULL);
CREATE INDEX op_index_target ON op_index(target, clock);
CREATE TABLE forgotten (id TEXT PRIMARY KEY, time TEXT);
CREATE TABLE store_writes (op_id TEXT PRIMARY KEY, store TEXT, name TEXT, sha256 TEXT, author TEXT,
  time TEXT);
CREATE TABLE skipped (part TEXT, line INTEGER, op_id TEXT, problem TEXT);
"""

# The derived rows of the records: their anchors, one row per anchor, and their full-text entry.
# A rebuild runs them over every record; a refresh adds a WHERE for each record it touched.
ANCHORS_FROM_RECORDS = """
            INSERT INTO anchors SELECT r.id, json_extract(a.value,'$.path'),
              json_extract(a.value,'$.symbol'), json_extract(a.value,'$.span[0]'),
              json_extract(a.value,'$.span[1]'), json_extract(a.value,'$.commit')
            FROM records r, json_each(r.anchors) a"""
FULL_TEXT_FIELDS = "text, description, tags"
FULL_TEXT_FROM_RECORDS = f"""INSERT INTO records_fts(rowid, {FULL_TEXT_FIELDS})
            SELECT rowid, {FULL_TEXT_FIELDS} FROM records"""
