import jsQR from 'jsqr';
import { useEffect, useRef, useState } from 'preact/hooks';

/** Frames are decoded at most this often (ms): enough to feel instant, light on a phone's CPU. */
const SCAN_EVERY_MS = 150;
/** Frames are scaled down to this width (px) before decoding: QR codes on a screen stay readable. */
const SCAN_WIDTH = 640;

interface Props {
  /** Called with each decoded text; return true to stop scanning (it was a pairing link). */
  onText: (text: string) => boolean;
}

/**
 * The camera view that reads a QR code (jsQR on getUserMedia frames). Loaded lazily: the decoder
 * is the biggest part of the app and only "Add a computer" needs it.
 */
export function QrScanner({ onText }: Props) {
  const video = useRef<HTMLVideoElement>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [notALink, setNotALink] = useState(false);

  useEffect(() => {
    let stream: MediaStream | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    const canvas = document.createElement('canvas');
    const context = canvas.getContext('2d', { willReadFrequently: true });

    const scan = () => {
      const el = video.current;
      if (stopped || !el || !context) return;
      if (el.readyState >= el.HAVE_CURRENT_DATA && el.videoWidth > 0) {
        const scale = Math.min(1, SCAN_WIDTH / el.videoWidth);
        canvas.width = Math.round(el.videoWidth * scale);
        canvas.height = Math.round(el.videoHeight * scale);
        context.drawImage(el, 0, 0, canvas.width, canvas.height);
        const image = context.getImageData(0, 0, canvas.width, canvas.height);
        const code = jsQR(image.data, image.width, image.height, { inversionAttempts: 'attemptBoth' });
        if (code?.data) {
          if (onText(code.data)) return;
          setNotALink(true);
        }
      }
      timer = setTimeout(scan, SCAN_EVERY_MS);
    };

    const start = async () => {
      if (!navigator.mediaDevices?.getUserMedia) {
        setProblem('This browser gives no camera to this page (it needs HTTPS). Paste the link instead.');
        return;
      }
      try {
        stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: 'environment' }, audio: false });
      } catch (error) {
        const name = error instanceof DOMException ? error.name : '';
        setProblem(
          name === 'NotAllowedError'
            ? 'Camera access was refused. Allow it in the browser settings, or paste the link instead.'
            : 'No camera could be opened. Paste the link instead.',
        );
        return;
      }
      if (stopped) return stream.getTracks().forEach((t) => t.stop());
      const el = video.current;
      if (!el) return;
      el.srcObject = stream;
      await el.play().catch(() => undefined);
      scan();
    };
    void start();
    return () => {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      stream?.getTracks().forEach((t) => t.stop());
    };
  }, [onText]);

  if (problem)
    return (
      <p class="error-text" role="alert">
        {problem}
      </p>
    );
  return (
    <div>
      <div class="video-box">
        <video ref={video} playsInline muted aria-label="Camera view" />
      </div>
      <p class="center" role="status">
        {notALink
          ? 'That QR code is not a Tether pairing link.'
          : 'Point the camera at the QR code that `tether start` shows.'}
      </p>
    </div>
  );
}
