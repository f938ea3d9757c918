/**
 * Copies text. The Clipboard API exists only in secure contexts; on a plain-http page the text is
 * copied through a temporary, off-screen textarea instead.
 */
export async function copyText(text: string): Promise<boolean> {
  if (window.isSecureContext && 'clipboard' in navigator) {
    try {
      await navigator.clipboard.writeText(text);
      return true;
    } catch {
      // Permission refused: try the old way.
    }
  }
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.className = 'visually-hidden';
  document.body.append(area);
  area.select();
  // execCommand is deprecated but is the only copy there is without the Clipboard API.
  const copied = document.execCommand('copy');
  area.remove();
  return copied;
}
