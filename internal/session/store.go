// Package session is aidex's persistent session store: one SQLite database
// (<DataDir>/aidex.db, DataDir being $XDG_DATA_HOME/aidex) holding the
// sessions, their messages, token usage and cost, the model's plan (todos),
// the files the model has read (read tracking) and the file checkpoints
// /undo restores.
//
// The database runs in WAL mode with synchronous=FULL (every commit is
// fsynced; the WAL file is kept between runs, emptied), a 5 s busy timeout, foreign keys on and incremental
// auto-vacuum (deleting sessions gives their space back to the file
// system; a database from before it is switched by its first delete). Writes are serialized
// by the [Store] (one writer); reads run concurrently. The schema is managed
// by goose migrations embedded in the binary. Open the store only when a
// command needs sessions: it is not part of aidex's start-up.
package session

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/pressly/goose/v3"
	"modernc.org/sqlite"

	"github.com/zelvior/aidex/internal/filelock"
	"github.com/zelvior/aidex/internal/ospath"
)

// FileName is the name of the database file inside the data directory.
const FileName = "aidex.db"

// schemaVersion is the version of the newest embedded migration. Open
// records it in PRAGMA user_version after migrating, so opening an
// up-to-date database costs one pragma instead of a goose run.
const schemaVersion = 8

// emptyKeep is how long a session without a message is kept after its
// last change: [Open] removes older ones.
const emptyKeep = 24 * time.Hour

// busyTimeoutMS is how long a statement waits for another writer (another
// aidex process) before failing with SQLITE_BUSY, in milliseconds.
const busyTimeoutMS = 5000

// walSizeLimit is the journal_size_limit, in bytes: the size the WAL file
// is cut back to when it is reset after a checkpoint. It is above the
// WAL's size at an automatic checkpoint (1,000 pages of 4 KiB, plus the
// commit that reached it), so that a long session's WAL is not cut and
// grown again after every checkpoint: a commit then rewrites blocks the
// file already has instead of extending it (issue 40: with 1 MiB, the
// commits' fsyncs cost 0.47 ms of CPU a turn over turns 100–500 of
// BenchmarkCPU500Turns, with 8 MiB 0.22 ms; docs/benchmarks.md). The WAL file
// is still emptied when the store closes (see persistWAL).
const walSizeLimit = 8 << 20

//go:embed migrations/*.sql
var migrationFiles embed.FS

// ErrNotFound is wrapped by the errors for a missing session (and for a
// workspace without sessions in [Store.Latest]).
var ErrNotFound = errors.New("session not found")

// ErrAmbiguous is wrapped by the error for an id prefix that matches more
// than one session.
var ErrAmbiguous = errors.New("ambiguous session id")

// Store is the session store. It is safe for concurrent use; writes are
// serialized, reads run concurrently. Close it when done.
type Store struct {
	db   *sql.DB
	path string
	// style is how this OS names and compares paths: workspaces are
	// absolute in it and compared by its Key.
	style ospath.Style
	// wmu serializes write transactions: one writer per Store. Other
	// processes are waited for through busy_timeout and BEGIN IMMEDIATE.
	wmu sync.Mutex
	now func() time.Time
	// made holds the sessions this Store created (id → madeRow), so the
	// ids it handed out stay valid when another aidex removes them as old
	// empty sessions (see revived).
	made sync.Map
}

// madeRow is what [Store.Create] wrote for a session: enough to write it
// again.
type madeRow struct {
	workspace, key, provider, model string
	created                         int64
}

// Open opens (creating when missing) the session database in dataDir,
// creating dataDir with mode 0700 and the file with mode 0600, and brings
// its schema up to date. Opening an existing, current database runs no
// migration (see BenchmarkOpenClose for its cost). Open then removes the
// sessions that have no message and were last changed over a day ago
// (one indexed query when there are none; a failure there is not Open's:
// the next Open tries again).
//
// Errors: an empty dataDir, a directory or file that cannot be created, a
// file that is not an SQLite database, a database written by a newer aidex,
// or a failed migration; each names the file.
func Open(ctx context.Context, dataDir string) (*Store, error) {
	return openStyle(ctx, dataDir, ospath.Native())
}

// openStyle is Open with the path rules of st (tests inject Windows').
func openStyle(ctx context.Context, dataDir string, st ospath.Style) (*Store, error) {
	if dataDir == "" {
		return nil, errors.New("open session store: no data directory given (set XDG_DATA_HOME or HOME)")
	}
	dir, err := filepath.Abs(dataDir)
	if err != nil {
		return nil, fmt.Errorf("open session store: data directory %q: %w", dataDir, err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("open session store: create data directory: %w", err)
	}
	path := filepath.Join(dir, FileName)
	// Create the file ourselves so it is private (sessions hold code and
	// prompts); SQLite gives the -wal and -shm files the same mode.
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open session store: %w", err)
	}
	fi, err := f.Stat()
	_ = f.Close()
	locked := false
	if err == nil && fi.Size() == 0 {
		// A new store is set up under the setup lock (lockSetup).
		release, err := lockSetup(ctx, path)
		if err != nil {
			return nil, fmt.Errorf("open session store %s: %w", path, err)
		}
		defer release()
		locked = true
	}
	base, err := sqlite.NewConnector(dsn(path, ospath.Native()))
	if err != nil {
		return nil, fmt.Errorf("open session store %s: %w", path, err)
	}
	db := sql.OpenDB(persistWAL{base})
	s := &Store{db: db, path: path, now: time.Now, style: st}
	if err := s.migrate(ctx, locked); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("open session store %s: %w", path, err)
	}
	if err := s.fillWorkspaceKeys(ctx); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("open session store %s: %w", path, err)
	}
	_ = s.removeOldEmpty(ctx)
	return s, nil
}

// pageCacheKiB is the most each connection keeps in SQLite's page cache,
// in KiB (SQLite's default is 2,000). The store is appended to for a
// session's life and read once on resume, and the default cache, full after
// a long session's inserts, sat in aidex's resident memory: 256 KiB keeps
// the 500-turn session's peak 3.4 MiB lower (issue 40, docs/benchmarks.md).
const pageCacheKiB = 256

// persistWAL opens connections whose WAL and shared-memory files stay on
// disk when the last connection closes (SQLITE_FCNTL_PERSIST_WAL): the
// closing checkpoint still copies every commit into the database and
// empties the WAL (cut to 0 bytes by journal_size_limit), but the next
// aidex does not create both files again, initialise the shared memory
// and fsync the data directory for the new WAL's name (one fsync of the
// seven a headless hello paid, the costliest: it commits the file system's
// journal). Durability is unchanged: every commit is still fsynced.
type persistWAL struct{ driver.Connector }

// Connect opens a connection and switches persistent WAL on for it.
func (p persistWAL) Connect(ctx context.Context) (driver.Conn, error) {
	c, err := p.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	fc, ok := c.(sqlite.FileControl)
	if !ok {
		return c, nil
	}
	if _, err := fc.FileControlPersistWAL("main", 1); err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("keep the WAL file: %w", err)
	}
	return c, nil
}

// dsn builds the modernc.org/sqlite data source name for the absolute path
// in the path style st: a file: URI (so any byte in the path is escaped,
// and a Windows drive path is file:///C:/..., never file://C:/..., whose
// authority SQLite rejects) with the per-connection pragmas.
func dsn(path string, st ospath.Style) string {
	u := st.FileURL(path)
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeoutMS))
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(FULL)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", fmt.Sprintf("cache_size(%d)", -pageCacheKiB))
	q.Add("_pragma", fmt.Sprintf("journal_size_limit(%d)", walSizeLimit))
	q.Set("_txlock", "immediate") // read-only transactions stay deferred
	u.RawQuery = q.Encode()
	return u.String()
}

// migrateWait bounds how long Open waits for another process that is
// migrating the same store's schema.
const migrateWait = 60 * time.Second

// lockSetup takes the store's setup lock (a file beside the database that
// exists only while it is held; filelock.LockRemovable), waiting up to
// migrateWait for another process that holds it. Several aidex processes
// may open a new or older store at once: one sets it up (the switch to
// WAL, the migrations), the others wait and then find it current. Neither
// SQLite nor goose is a guard on their own: a new database's switch to
// WAL answers SQLITE_BUSY at once instead of waiting, and two goose runs
// can both read the old version and apply the same migration ("table
// snapshots already exists"). Errors: the wait ran out, or the lock file
// could not be made.
func lockSetup(ctx context.Context, path string) (release func(), err error) {
	wctx, cancel := context.WithTimeout(ctx, migrateWait)
	defer cancel()
	held, err := filelock.LockRemovable(wctx, path+".migrate.lock", 0o600)
	if err != nil {
		return nil, fmt.Errorf("wait for another aidex setting up the session store: %w", err)
	}
	return held.Release, nil
}

// migrate brings the schema to schemaVersion with goose, unless
// PRAGMA user_version says it is there already; locked says the caller
// holds the setup lock (lockSetup), which it takes otherwise.
func (s *Store) migrate(ctx context.Context, locked bool) error {
	v, err := s.userVersion(ctx)
	if err != nil {
		return fmt.Errorf("read schema version (is it an SQLite database?): %w", err)
	}
	switch {
	case v == schemaVersion:
		return nil
	case v > schemaVersion:
		return fmt.Errorf("schema version %d is newer than this aidex knows (%d): upgrade aidex", v, schemaVersion)
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if !locked {
		release, err := lockSetup(ctx, s.path)
		if err != nil {
			return err
		}
		defer release()
		if v, err = s.userVersion(ctx); err != nil {
			return fmt.Errorf("read schema version: %w", err)
		}
		if v == schemaVersion {
			return nil
		}
	}
	// Switched on before the first table, a new database needs no VACUUM
	// (an existing one is switched by its first Delete: see reclaim).
	if v == 0 {
		_ = s.incrementalVacuumOnNew(ctx)
	}
	err = s.gooseUp(ctx)
	if err != nil {
		// An older aidex (which takes no lock) may have migrated at the
		// same moment; a second run sees its work.
		err = s.gooseUp(ctx)
	}
	if err != nil {
		return fmt.Errorf("migrate schema: %w", err)
	}
	if _, err := s.db.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", schemaVersion)); err != nil {
		return fmt.Errorf("record schema version: %w", err)
	}
	return nil
}

// incrementalVacuumOnNew switches a database without tables yet to
// incremental auto-vacuum, which costs nothing before the first table.
func (s *Store) incrementalVacuumOnNew(ctx context.Context) error {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	var tables int
	if err := conn.QueryRowContext(ctx, "SELECT COUNT(*) FROM sqlite_master").Scan(&tables); err != nil || tables > 0 {
		return err
	}
	if _, err := conn.ExecContext(ctx, "PRAGMA auto_vacuum = INCREMENTAL"); err != nil {
		return err
	}
	_, err = conn.ExecContext(ctx, "VACUUM")
	return err
}

// removeOldEmpty deletes the sessions without a message last changed over
// emptyKeep ago (with their checkpoints, snapshots and read records) and
// gives their space back. When there are none it costs one query on the
// partial index of empty sessions.
func (s *Store) removeOldEmpty(ctx context.Context) error {
	cutoff := s.now().Add(-emptyKeep).UnixNano()
	var found bool
	err := s.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM sessions WHERE message_count = 0 AND updated_at < ?)`, cutoff).Scan(&found)
	if err != nil || !found {
		return err
	}
	err = s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE message_count = 0 AND updated_at < ?`, cutoff)
		return err
	})
	if err != nil {
		return fmt.Errorf("remove old empty sessions: %w", err)
	}
	return s.reclaim(ctx, false)
}

// reclaim gives the database's free pages back to the file system
// (incremental auto-vacuum); the file shrinks at the next WAL checkpoint.
// A database from before schema 6 has no auto-vacuum: with switchOn,
// reclaim switches it on with a VACUUM, which rewrites the file once (it
// takes time and free disk space about the database's size, so it is
// done by an explicit delete, never at start); without, it does nothing.
func (s *Store) reclaim(ctx context.Context, switchOn bool) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("reclaim free space: %w", err)
	}
	defer conn.Close()
	var mode int
	if err := conn.QueryRowContext(ctx, "PRAGMA auto_vacuum").Scan(&mode); err != nil {
		return fmt.Errorf("reclaim free space: %w", err)
	}
	if mode != 2 {
		if !switchOn {
			return nil
		}
		if _, err := conn.ExecContext(ctx, "PRAGMA auto_vacuum = INCREMENTAL"); err != nil {
			return fmt.Errorf("reclaim free space: %w", err)
		}
		if _, err := conn.ExecContext(ctx, "VACUUM"); err != nil {
			return fmt.Errorf("reclaim free space (VACUUM needs free disk space about the database's size): %w", err)
		}
		return nil
	}
	// The pragma frees pages as it is stepped: read its result to the end.
	rows, err := conn.QueryContext(ctx, "PRAGMA incremental_vacuum")
	if err != nil {
		return fmt.Errorf("reclaim free space: %w", err)
	}
	for rows.Next() { //nolint:revive // stepping is the work; the rows carry nothing
	}
	if err := rows.Err(); err != nil {
		_ = rows.Close()
		return fmt.Errorf("reclaim free space: %w", err)
	}
	if err := rows.Close(); err != nil {
		return fmt.Errorf("reclaim free space: %w", err)
	}
	return nil
}

// revived runs fn, and when it fails with [ErrNotFound] for a session this
// Store created (another aidex removed it meanwhile as an old empty
// session), writes the session again as Create did, now, and runs fn once
// more: an id a front end handed out stays valid in its process.
func (s *Store) revived(ctx context.Context, id string, fn func() error) error {
	err := fn()
	if err == nil || !errors.Is(err, ErrNotFound) {
		return err
	}
	v, ok := s.made.Load(id)
	if !ok {
		return err
	}
	m := v.(madeRow)
	now := s.now().UnixNano()
	if werr := s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO sessions (id, workspace, workspace_key, provider, model,
			created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)`, id, m.workspace, m.key, m.provider, m.model, m.created, now)
		return err
	}); werr != nil {
		return err
	}
	return fn()
}

func (s *Store) userVersion(ctx context.Context) (int64, error) {
	var v int64
	err := s.db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v)
	return v, err
}

// gooseUp applies the pending embedded migrations.
func (s *Store) gooseUp(ctx context.Context) error {
	p, err := newMigrator(s.db)
	if err != nil {
		return err
	}
	_, err = p.Up(ctx)
	return err
}

// newMigrator returns a goose provider over the embedded migrations, with
// no use of goose's global registry.
func newMigrator(db *sql.DB) (*goose.Provider, error) {
	sub, err := fs.Sub(migrationFiles, "migrations")
	if err != nil {
		return nil, err
	}
	return goose.NewProvider(goose.DialectSQLite3, db, sub, goose.WithDisableGlobalRegistry(true))
}

// Path returns the absolute path of the database file.
func (s *Store) Path() string { return s.path }

// Close closes the database. Calls after Close fail with an error.
func (s *Store) Close() error {
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("close session store %s: %w", s.path, err)
	}
	return nil
}

// write runs fn in a write transaction (BEGIN IMMEDIATE), serialized with
// every other write of s, and commits it when fn returns nil.
func (s *Store) write(ctx context.Context, fn func(tx *sql.Tx) error) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin write: %w", err)
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// read runs fn in a read-only transaction, so its queries see one snapshot.
func (s *Store) read(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("begin read: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	return fn(tx)
}
