# sqlite3 on file databases: rollback journal and WAL (with its -shm
# mapping), a second connection, ATTACH, and a dump. Run in an empty
# directory.
set -e
sqlite3 db <<'END'
PRAGMA journal_mode=DELETE;
CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, n INTEGER);
BEGIN;
INSERT INTO t(name, n) VALUES ('alpha', 1), ('beta', 2), ('gamma', 3);
COMMIT;
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 2000)
INSERT INTO t(name, n) SELECT 'row' || x, x FROM c;
UPDATE t SET n = n * 2 WHERE id % 3 = 0;
DELETE FROM t WHERE id % 7 = 0;
SELECT count(*), sum(n) FROM t;
SELECT name FROM t ORDER BY id LIMIT 3;
END
# A second process sees the committed data; a failed transaction rolls back.
sqlite3 db 'SELECT count(*) FROM t WHERE name LIKE "row%"'
sqlite3 db 'BEGIN; DELETE FROM t; SELECT count(*) FROM t; ROLLBACK;' || true
sqlite3 db 'SELECT count(*) FROM t'
# WAL: the -wal and -shm files, a checkpoint, a reader and a writer.
sqlite3 wal.db <<'END'
PRAGMA journal_mode=WAL;
CREATE TABLE kv(k TEXT PRIMARY KEY, v TEXT);
INSERT INTO kv VALUES ('a', '1'), ('b', '2');
ATTACH 'db' AS other;
INSERT INTO kv SELECT name, n FROM other.t WHERE id < 10;
SELECT count(*) FROM kv;
PRAGMA wal_checkpoint(TRUNCATE);
END
sqlite3 wal.db 'SELECT k, v FROM kv ORDER BY k LIMIT 4'
sqlite3 -csv wal.db 'SELECT * FROM kv ORDER BY k' > kv.csv
sqlite3 db .dump | tail -n 3
sqlite3 db 'PRAGMA integrity_check'
