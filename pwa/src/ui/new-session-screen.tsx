import type { MachineInfo, ProtocolError } from '@tether/shared-protocol';
import { useState } from 'preact/hooks';
import { AgentSessions } from './agent-sessions.js';
import { AgentsHint } from './agents-hint.js';
import { useApp } from './app-context.js';
import { HostsLoading } from './hosts-loading.js';
import { FolderPicker } from './folder-picker.js';
import type { StartChoice } from './start-options.js';
import { StartOptions } from './start-options.js';
import { formatRoute } from '../lib/route.js';
import { TopBar } from './top-bar.js';
import { useStore } from './use-store.js';

const NO_MACHINES: MachineInfo[] = [];

/**
 * A new session: where it runs (this computer or a machine), a folder, who runs it (Tether's loop
 * with a model, or an ACP agent), and the first message. With an agent chosen, one of its own
 * earlier sessions in the folder (started at the computer) can be continued instead.
 */
export function NewSessionScreen({ hostId, back }: { hostId: string; back?: string }) {
  const { app, navigate } = useApp();
  useStore(app.connectionsVersion);
  const ready = useStore(app.ready);
  const record = useStore(app.hosts).find((h) => h.hostId === hostId);
  const connection = app.connection(hostId);
  const liveInfo = useStore(connection?.info, null);
  const info = liveInfo ?? record?.info;
  const machines = useStore(connection?.machines, NO_MACHINES);
  const [cwd, setCwd] = useState(record?.recentFolders[0] ?? '');
  /** '' is the host's own computer; otherwise a machine's name. */
  const [place, setPlace] = useState('');
  const [model, setModel] = useState('');
  /** '' is Tether's own loop; otherwise an ACP agent's name. */
  const [agent, setAgent] = useState('');
  const [text, setText] = useState('');
  const [start, setStart] = useState<StartChoice>({});
  const [worktree, setWorktree] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ProtocolError | null>(null);

  if (!record || !connection) {
    return (
      <div class="screen">
        <TopBar title="New session" back={back} />
        {ready ? <p class="placeholder">This computer is not paired with this device.</p> : <HostsLoading />}
      </div>
    );
  }
  const chosenModel = model || info?.defaultModel || '';
  const agents = info?.agents?.filter((a) => a.available) ?? [];
  const chosenAgent = agents.some((a) => a.name === agent) ? agent : '';

  const create = async () => {
    setBusy(true);
    setError(null);
    const result = await connection.client.call('sessions.create', {
      cwd: cwd.trim(),
      text: text.trim(),
      ...(chosenAgent ? { agent: chosenAgent } : chosenModel ? { model: chosenModel } : {}),
      ...(place !== '' ? { place } : {}),
      ...start,
      ...(worktree && info?.features.includes('git') ? { worktree: true } : {}),
    });
    setBusy(false);
    if (!result.ok) return setError(result.error);
    // Recent folders are the host's own: a machine's folder means nothing on another computer.
    if (place === '') await app.rememberFolder(hostId, cwd.trim());
    navigate(formatRoute({ name: 'session', hostId, sessionId: result.value.session.id }), { replace: true });
  };

  return (
    <div class="screen" data-screen="new-session">
      <TopBar title="New session" back={back} />
      <form
        class="scroll"
        onSubmit={(e) => {
          e.preventDefault();
          void create();
        }}
      >
        {machines.length > 0 && (
          <>
            <label for="session-place">Runs on</label>
            <select
              id="session-place"
              value={place}
              onChange={(e) => {
                setPlace(e.currentTarget.value);
                setCwd('');
              }}
            >
              <option value="">this computer</option>
              {machines.map((m) => (
                <option key={m.id} value={m.name}>
                  {m.name}
                  {m.status === 'offline' ? ' (offline)' : ''}
                </option>
              ))}
            </select>
          </>
        )}
        <FolderPicker
          key={place}
          connection={connection}
          recent={place === '' ? record.recentFolders : []}
          value={cwd}
          onChange={setCwd}
          {...(place !== '' ? { machine: place } : {})}
        />
        <label for="session-folder">Folder</label>
        <input
          id="session-folder"
          type="text"
          value={cwd}
          autoComplete="off"
          spellcheck={false}
          placeholder={
            (place === '' ? info?.roots[0] : machines.find((m) => m.name === place)?.roots[0]) ?? '/path/to/project'
          }
          onInput={(e) => setCwd(e.currentTarget.value)}
        />
        {info?.features.includes('git') && (
          <label class="check">
            <input type="checkbox" checked={worktree} onChange={(e) => setWorktree(e.currentTarget.checked)} /> In a new
            worktree (a git folder only: on a new branch beside it)
          </label>
        )}
        {agents.length > 0 && (
          <>
            <label for="session-agent">Agent</label>
            <select id="session-agent" value={chosenAgent} onChange={(e) => setAgent(e.currentTarget.value)}>
              <option value="">Tether</option>
              {agents.map((a) => (
                <option key={a.name} value={a.name}>
                  {a.title}
                </option>
              ))}
            </select>
          </>
        )}
        {chosenAgent !== '' && (
          <AgentSessions
            key={`${chosenAgent}\n${place}`}
            connection={connection}
            agent={agents.find((a) => a.name === chosenAgent)!}
            cwd={cwd}
            place={place}
            onOpen={(sessionId) => {
              if (place === '') void app.rememberFolder(hostId, cwd.trim());
              navigate(formatRoute({ name: 'session', hostId, sessionId }), { replace: true });
            }}
          />
        )}
        {chosenAgent === '' && (
          <>
            <label for="session-model">Model</label>
            <select id="session-model" value={chosenModel} onChange={(e) => setModel(e.currentTarget.value)}>
              {(info?.models.length ? info.models : [chosenModel || 'default']).map((name) => (
                <option key={name} value={name}>
                  {name}
                </option>
              ))}
            </select>
          </>
        )}
        <StartOptions client={connection.client} agent={chosenAgent} onChange={setStart} />
        {agents.length === 0 && info && <AgentsHint agents={info.agents ?? []} />}
        <label for="session-text">First message</label>
        <textarea id="session-text" rows={4} value={text} onInput={(e) => setText(e.currentTarget.value)} />
        {error && (
          <p class="error-text" role="alert">
            Could not start the session: {error.message}
          </p>
        )}
        <div class="form-actions">
          <button type="submit" class="primary" disabled={busy || cwd.trim() === '' || text.trim() === ''}>
            {busy ? 'Starting…' : 'Start session'}
          </button>
        </div>
      </form>
    </div>
  );
}
