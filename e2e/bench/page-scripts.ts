// Scripts the app benches run in the page, as strings: tsx would wrap named helpers in a `__name`
// call the page does not have.

/** Empties the app's cache of transcripts (IndexedDB), so the next open of a session is cold. */
export const CLEAR_TRANSCRIPTS = `new Promise((resolve) => {
  const open = indexedDB.open('tether');
  open.onsuccess = () => {
    const tx = open.result.transaction('transcripts', 'readwrite');
    tx.objectStore('transcripts').clear();
    tx.oncomplete = () => { open.result.close(); resolve(true); };
  };
  open.onerror = () => resolve(false);
})`;
