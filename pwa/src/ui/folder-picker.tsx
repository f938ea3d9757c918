import type { DirListing, ProtocolError } from '@tether/shared-protocol';
import { useState } from 'preact/hooks';
import type { HostConnection } from '../net/host-connection.js';

interface Props {
  connection: HostConnection;
  recent: string[];
  value: string;
  onChange: (path: string) => void;
  /** Browse this machine's shared folders (`machines.listDirs`) instead of the host's. */
  machine?: string;
}

/**
 * Choosing a session's folder: the recent ones, or browsing the folders the host allows
 * (`fs.listDirs`: no path lists its roots).
 */
export function FolderPicker({ connection, recent, value, onChange, machine }: Props) {
  const [listing, setListing] = useState<DirListing | null>(null);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<ProtocolError | null>(null);

  const open = async (path: string | null) => {
    setLoading(true);
    setError(null);
    const at = path === null ? {} : { path };
    const result =
      machine === undefined
        ? await connection.client.call('fs.listDirs', at)
        : await connection.client.call('machines.listDirs', { machine, ...at });
    setLoading(false);
    if (!result.ok) return setError(result.error);
    setListing(result.value);
    if (result.value.path !== null) onChange(result.value.path);
  };

  return (
    <div>
      {recent.length > 0 && (
        <>
          <h2 class="section-title">Recent folders</h2>
          <ul class="folders" aria-label="Recent folders">
            {recent.map((path) => (
              <li key={path}>
                <button type="button" aria-pressed={path === value} onClick={() => onChange(path)}>
                  {path}
                </button>
              </li>
            ))}
          </ul>
        </>
      )}
      <h2 class="section-title">Browse</h2>
      {listing === null ? (
        <button type="button" disabled={loading} onClick={() => void open(null)}>
          {loading
            ? 'Loading…'
            : machine === undefined
              ? 'Browse folders on the computer'
              : `Browse folders on ${machine}`}
        </button>
      ) : (
        <>
          <p class="row-meta">{listing.path ?? 'Folders you can use'}</p>
          <ul class="folders" aria-label="Folders" aria-busy={loading}>
            {listing.path !== null && (
              <li>
                <button type="button" onClick={() => void open(listing.parent)}>
                  ‹ Up
                </button>
              </li>
            )}
            {listing.dirs.map((dir) => (
              <li key={dir.path}>
                <button type="button" aria-pressed={dir.path === value} onClick={() => void open(dir.path)}>
                  {listing.path === null ? dir.path : `${dir.name}/`}
                </button>
              </li>
            ))}
            {listing.dirs.length === 0 && <li class="row-meta">No folders here.</li>}
          </ul>
          {listing.truncated && <p class="row-meta">Only the first folders are shown.</p>}
        </>
      )}
      {error && (
        <p class="error-text" role="alert">
          {error.code === 'forbidden'
            ? 'This device may not browse folders.'
            : `Could not list folders: ${error.message}`}
        </p>
      )}
    </div>
  );
}
