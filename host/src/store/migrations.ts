/**
 * Versioned schema migrations, applied in order inside one transaction each. `PRAGMA user_version`
 * records how far a database has come. Never edit a released migration: add the next one.
 */
export const MIGRATIONS: readonly string[] = [
  // 1: the core: sessions, their append-only event log, approvals, queued messages, settings,
  // and the tables later parts fill (devices, push subscriptions, machines, tokens).
  `
  CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    title TEXT NOT NULL,
    kind TEXT NOT NULL,
    place TEXT NOT NULL,
    cwd TEXT NOT NULL,
    model TEXT NOT NULL,
    status TEXT NOT NULL,
    archived INTEGER NOT NULL DEFAULT 0,
    auto_approve INTEGER NOT NULL DEFAULT 0,
    allow_rules TEXT NOT NULL DEFAULT '[]',
    last_seq INTEGER NOT NULL DEFAULT 0,
    last_line TEXT NOT NULL DEFAULT '',
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );
  CREATE INDEX sessions_updated ON sessions (updated_at DESC);

  CREATE TABLE events (
    session_id TEXT NOT NULL REFERENCES sessions (id),
    seq INTEGER NOT NULL,
    type TEXT NOT NULL,
    payload TEXT NOT NULL,
    at INTEGER NOT NULL,
    PRIMARY KEY (session_id, seq)
  ) WITHOUT ROWID;

  CREATE TABLE approvals (
    id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES sessions (id),
    tool_call_id TEXT NOT NULL,
    tool TEXT NOT NULL,
    kind TEXT NOT NULL,
    action TEXT NOT NULL,
    cwd TEXT NOT NULL,
    place TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    status TEXT NOT NULL,
    decision TEXT,
    note TEXT,
    prefix TEXT,
    answered_by TEXT,
    answered_at INTEGER
  );
  CREATE INDEX approvals_pending ON approvals (status, session_id);

  CREATE TABLE queued_messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions (id),
    text TEXT NOT NULL,
    created_at INTEGER NOT NULL
  );
  CREATE INDEX queued_by_session ON queued_messages (session_id, id);

  CREATE TABLE settings (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
  );

  CREATE TABLE devices (
    id TEXT PRIMARY KEY,
    public_key TEXT NOT NULL UNIQUE,
    label TEXT NOT NULL,
    scopes TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    last_seen_at INTEGER,
    revoked_at INTEGER
  );

  CREATE TABLE push_subscriptions (
    endpoint TEXT PRIMARY KEY,
    device_id TEXT NOT NULL REFERENCES devices (id),
    p256dh TEXT NOT NULL,
    auth TEXT NOT NULL,
    created_at INTEGER NOT NULL
  );

  CREATE TABLE machines (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    token_id TEXT NOT NULL,
    roots TEXT NOT NULL DEFAULT '[]',
    created_at INTEGER NOT NULL,
    last_seen_at INTEGER
  );

  CREATE TABLE tokens (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    scope TEXT NOT NULL,
    hash TEXT NOT NULL UNIQUE,
    created_at INTEGER NOT NULL,
    revoked_at INTEGER
  );
  `,
  // 2: machines and their tokens: what a machine said when it registered, when a token was last
  // used, and the (machine, token) pairs a person forgot, which that token may not register again.
  `
  ALTER TABLE machines ADD COLUMN capabilities TEXT NOT NULL DEFAULT '[]';
  ALTER TABLE machines ADD COLUMN version TEXT NOT NULL DEFAULT '';
  ALTER TABLE tokens ADD COLUMN last_used_at INTEGER;
  CREATE TABLE forgotten_machines (
    machine_id TEXT NOT NULL,
    token_id TEXT NOT NULL,
    forgotten_at INTEGER NOT NULL,
    PRIMARY KEY (machine_id, token_id)
  ) WITHOUT ROWID;
  `,
  // 3: a run at a glance (counters kept as events are appended) and each session's own
  // model-call limit per run (NULL: the host's default).
  `
  CREATE TABLE session_activity (
    session_id TEXT PRIMARY KEY REFERENCES sessions (id),
    run_started_at INTEGER,
    run_ended_at INTEGER,
    model_calls INTEGER NOT NULL DEFAULT 0,
    max_model_calls INTEGER,
    tool_calls INTEGER NOT NULL DEFAULT 0,
    input_tokens INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    cost_usd REAL,
    now TEXT NOT NULL DEFAULT '',
    paused INTEGER NOT NULL DEFAULT 0
  ) WITHOUT ROWID;
  `,
  // 4: push subscriptions carry what the device wants to hear of, and go with a revoked device.
  `
  ALTER TABLE push_subscriptions ADD COLUMN preferences TEXT NOT NULL
    DEFAULT '{"approvals":true,"runFinished":false,"runFailed":false}';
  CREATE INDEX push_subscriptions_device ON push_subscriptions (device_id);
  CREATE TRIGGER push_subscriptions_revoked AFTER UPDATE OF revoked_at ON devices
    WHEN NEW.revoked_at IS NOT NULL
  BEGIN
    DELETE FROM push_subscriptions WHERE device_id = NEW.id;
  END;
  `,
  // 5: runs whose back-end did not report what they used (an ACP agent's), so a session's token
  // totals read as unknown rather than 0.
  `
  ALTER TABLE session_activity ADD COLUMN unreported_runs INTEGER NOT NULL DEFAULT 0;
  `,
  // 6: an agent's own answer that outlives the session (offered as "always"), in its words.
  `
  ALTER TABLE approvals ADD COLUMN always TEXT;
  `,
  // 7: the agent a session talks to, in a field of its own (NULL: Tether's own loop). An ACP
  // session kept its agent's name in \`model\`; a wrapped program is known by its session's name.
  `
  ALTER TABLE sessions ADD COLUMN agent TEXT;
  UPDATE sessions SET agent = model WHERE kind = 'acp';
  UPDATE sessions SET agent = title WHERE kind = 'terminal';
  `,
  // 8: the ids devices give their messages (sessions.send's clientMessageId), so a message sent
  // again after a dropped connection is taken once; `queued` is the first send's answer. And when
  // a session's devices are notified (needs, done, off).
  `
  CREATE TABLE message_receipts (
    session_id TEXT NOT NULL,
    client_id TEXT NOT NULL,
    queued INTEGER NOT NULL,
    received_at INTEGER NOT NULL,
    PRIMARY KEY (session_id, client_id)
  ) WITHOUT ROWID;
  CREATE INDEX message_receipts_age ON message_receipts (session_id, received_at);
  ALTER TABLE sessions ADD COLUMN notify TEXT NOT NULL DEFAULT 'needs';
  `,
  // 9: what Tether's own loop reports of a run: the instruction files its prompt took in (JSON),
  // how full the model's context was at the last call, and how often the history was compacted.
  `
  ALTER TABLE session_activity ADD COLUMN instructions TEXT;
  ALTER TABLE session_activity ADD COLUMN context_tokens INTEGER;
  ALTER TABLE session_activity ADD COLUMN context_window INTEGER;
  ALTER TABLE session_activity ADD COLUMN compactions INTEGER NOT NULL DEFAULT 0;
  `,
  // 10: attachments. A blob is kept once by the SHA-256 of its bytes (the file is in the data
  // dir's blobs/ folder); a session holds the blobs sent to it, each under the name it was sent
  // with; a message queued behind a busy run keeps its attachments (JSON list, NULL: none).
  `
  CREATE TABLE blobs (
    id TEXT PRIMARY KEY,
    type TEXT NOT NULL,
    size INTEGER NOT NULL,
    created_at INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE TABLE session_blobs (
    session_id TEXT NOT NULL REFERENCES sessions (id),
    blob_id TEXT NOT NULL REFERENCES blobs (id),
    name TEXT NOT NULL,
    added_at INTEGER NOT NULL,
    PRIMARY KEY (session_id, blob_id)
  ) WITHOUT ROWID;
  CREATE INDEX session_blobs_blob ON session_blobs (blob_id);
  ALTER TABLE queued_messages ADD COLUMN attachments TEXT;
  `,
  // 11: a session's last sequence number and last change are read from its newest event (the
  // events table's own key), not kept in its row: an append is one INSERT, where it was a
  // transaction that also rewrote the session's row and an index of it.
  `
  DROP INDEX sessions_updated;
  ALTER TABLE sessions DROP COLUMN last_seq;
  `,
  // 12: share links: read-only links to one session. Like a device, a link is kept by the public key
  // of its viewer (the secret it is derived from is only in the link), with its session, name,
  // whether photos are shown, who made it, when it ends and whether it was revoked.
  `
  CREATE TABLE share_links (
    id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES sessions (id),
    public_key TEXT NOT NULL,
    name TEXT NOT NULL,
    include_photos INTEGER NOT NULL,
    created_by TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    revoked_at INTEGER,
    last_seen_at INTEGER
  ) WITHOUT ROWID;
  CREATE INDEX share_links_session ON share_links (session_id);
  `,
  // 13: folder trust: a folder's own agent configuration (Claude Code's .claude/, Codex's .codex/,
  // Gemini CLI's .gemini/, the own loop's .agents/) that the person trusted, per place, folder and
  // agent, pinned to its content by a fingerprint; `action` is what they were shown.
  `
  CREATE TABLE folder_trust (
    place TEXT NOT NULL,
    folder TEXT NOT NULL,
    family TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    action TEXT NOT NULL,
    trusted_at INTEGER NOT NULL,
    trusted_by TEXT NOT NULL,
    PRIMARY KEY (place, folder, family)
  ) WITHOUT ROWID;
  `,
  // 14: a push subscription that takes Declarative Web Push (Safari 18.4+): the app's address a tap
  // on its notifications opens (NULL: the service worker shows them).
  `
  ALTER TABLE push_subscriptions ADD COLUMN declarative_url TEXT;
  `,
  // 15: steering: a session's mode and an ACP agent's model (id and name), the lists its agent offers
  // (JSON) and how the agent takes a change of mode or model (\`set_mode\`, \`set_model\`, or
  // \`config:<option id>\`), and
  // its budget; per agent, the lists it offered last (shown at New session before it runs) and
  // whether its turns report what they used; per run, its tokens, model calls without a known
  // price, and whether it stopped at the budget.
  `
  CREATE TABLE session_steering (
    session_id TEXT PRIMARY KEY REFERENCES sessions (id),
    mode TEXT,
    mode_name TEXT,
    agent_model TEXT,
    agent_model_name TEXT,
    commands TEXT,
    modes TEXT,
    models TEXT,
    mode_via TEXT,
    model_via TEXT,
    budget_tokens INTEGER,
    budget_usd REAL
  ) WITHOUT ROWID;
  CREATE TABLE agent_offers (
    agent TEXT PRIMARY KEY,
    commands TEXT,
    modes TEXT,
    models TEXT,
    reports_usage INTEGER,
    updated_at INTEGER NOT NULL
  ) WITHOUT ROWID;
  ALTER TABLE session_activity ADD COLUMN run_input_tokens INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE session_activity ADD COLUMN run_output_tokens INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE session_activity ADD COLUMN unpriced_calls INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE session_activity ADD COLUMN budget_reached INTEGER NOT NULL DEFAULT 0;
  `,
];
