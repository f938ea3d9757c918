import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import type { WebDriver, WebElement } from 'selenium-webdriver';
import { Builder, By, error as seleniumError } from 'selenium-webdriver';
import type { DriverProcess } from './webkit-driver.js';
import { startDriverProcess } from './webkit-driver.js';
import type { Xvfb } from './xvfb.js';
import { startXvfb } from './xvfb.js';

/**
 * Safari's engine at phone (or iPad) size: Debian's WebKitGTK MiniBrowser, driven over WebDriver
 * by WebKitWebDriver, on its own Xvfb screen. MiniBrowser's toolbar keeps a window at least 447 px
 * wide, so it runs full-screen (no toolbar) on a screen of the size wanted and its window is sized
 * to that: the page's viewport is then exactly that size (390×844 by default, an iPhone's).
 *
 * WebKitWebDriver 2.50 has no BiDi and no log endpoint, so page errors are collected by a hook
 * injected after each load (`open`, `reload`, `reopen`): uncaught errors, unhandled rejections
 * and console.error. Errors thrown before the hook is in are not seen.
 */
export interface WebKitPhone {
  driver: WebDriver;
  /** Loads `url` as a new document and installs the error hook. */
  open(url: string): Promise<void>;
  reload(): Promise<void>;
  /**
   * Closes the app's page and opens `url` in a new one (a tab of the same full-screen window):
   * the page and its memory are gone, the origin's storage and service worker stay (one browser
   * profile), as when an app is closed and opened again.
   */
  reopen(url: string): Promise<void>;
  /** Every page error seen so far, in every document this phone loaded. */
  pageErrors(): Promise<string[]>;
  /** The first element matching `css`, or undefined. */
  find(css: string): Promise<WebElement | undefined>;
  /** `css`'s attribute `name`; undefined while there is no such element. */
  attr(css: string, name: string): Promise<string | null | undefined>;
  /** `css`'s visible text; undefined while there is no such element. */
  text(css: string): Promise<string | undefined>;
  /** Whether an element matching `css` is displayed; throws when the driver could not tell. */
  shown(css: string): Promise<boolean>;
  /**
   * Clicks the first displayed button whose text or label is `name` (inside `within`, when given),
   * once there is one.
   */
  clickButton(name: string, within?: string): Promise<void>;
  /** Clicks the first displayed element matching `css`, once there is one. */
  click(css: string): Promise<void>;
  /** Types into the first displayed field matching `css` (after what it holds), once there is one. */
  type(css: string, text: string): Promise<void>;
  /** Types `text` into whatever has the focus, as a keyboard does (WebDriver key actions). */
  keys(text: string): Promise<void>;
  /** Runs `script` (a function body) in the page and returns what it returns. */
  run<T>(script: string, ...args: unknown[]): Promise<T>;
  screenshot(path: string): Promise<void>;
  /** What runs for this phone: Xvfb, and the process group of the driver and the browser. */
  processes: { xvfb: number; driverGroup: number };
  stop(): Promise<void>;
}

export const PHONE = { width: 390, height: 844 } as const;
/** An 11-inch iPad Pro in portrait, in CSS pixels (Playwright's `iPad Pro 11` viewport). */
export const IPAD = { width: 834, height: 1194 } as const;

export interface ScreenSize {
  width: number;
  height: number;
}

export interface WebKitPhoneOptions {
  /** The screen, and so the page's viewport (default: a 390×844 phone). */
  size?: ScreenSize;
  /** `host:port` of an HTTP proxy every request goes through (`phone-network.ts`). */
  proxy?: string;
}

/** MiniBrowser as Debian installs it (package libwebkit2gtk-4.1-0). */
export function miniBrowserPath(): string {
  if (process.env.MINIBROWSER_PATH) return process.env.MINIBROWSER_PATH;
  const files = execFileSync('dpkg', ['-L', 'libwebkit2gtk-4.1-0'], { encoding: 'utf8' }).split('\n');
  const found = files.find((file) => file.endsWith('/MiniBrowser'));
  if (!found) throw new Error('MiniBrowser not found: apt-get install webkit2gtk-driver');
  return found;
}

const ERROR_HOOK = `
  if (!window.__e2ePageErrors) {
    const errors = (window.__e2ePageErrors = []);
    // WebKit's stack holds the frames only: the message goes first.
    const text = (value) => String(value) + (value && value.stack ? '\\n' + value.stack : '');
    window.addEventListener('error', (event) =>
      errors.push('error: ' + (event.error ? text(event.error) : event.message) + ' at ' + event.filename + ':' + event.lineno),
    );
    window.addEventListener('unhandledrejection', (event) => errors.push('unhandled rejection: ' + text(event.reason)));
    const original = console.error;
    console.error = (...args) => {
      errors.push('console.error: ' + args.map(text).join(' '));
      original.apply(console, args);
    };
  }`;

export async function startWebKitPhone(options: WebKitPhoneOptions = {}): Promise<WebKitPhone> {
  const size = options.size ?? PHONE;
  const binary = miniBrowserPath();
  const xvfb = await startXvfb(size.width, size.height);
  let server: DriverProcess | undefined;
  let driver: WebDriver | undefined;
  try {
    server = await startDriverProcess(xvfb);
    driver = await new Builder()
      .usingServer(server.url)
      .withCapabilities({
        browserName: 'MiniBrowser',
        'webkitgtk:browserOptions': { binary, args: ['--automation', '--full-screen'] },
        // WebKitGTK sends even loopback requests through it.
        ...(options.proxy ? { proxy: { proxyType: 'manual', httpProxy: options.proxy } } : {}),
      })
      .build();
    await driver
      .manage()
      .window()
      .setRect({ x: 0, y: 0, ...size });
    await driver.manage().setTimeouts({ script: 30_000, pageLoad: 30_000 });
  } catch (error) {
    await driver?.quit().catch(() => undefined);
    await server?.stop();
    await xvfb.stop();
    throw error;
  }
  return phone(driver, server, xvfb, size);
}

function phone(driver: WebDriver, server: DriverProcess, xvfb: Xvfb, size: ScreenSize): WebKitPhone {
  const earlier: string[] = [];
  const hook = async () => {
    await driver.executeScript(ERROR_HOOK);
  };
  /** Moves this document's errors into `earlier`, before the document goes. */
  const collect = async () => {
    const errors = await driver.executeScript<string[] | undefined>('return window.__e2ePageErrors').catch(() => []);
    earlier.push(...(errors ?? []));
    await driver.executeScript('if (window.__e2ePageErrors) window.__e2ePageErrors.length = 0').catch(() => undefined);
  };
  const find = async (css: string) => (await unstale(() => driver.findElements(By.css(css))))[0];
  const self: WebKitPhone = {
    driver,
    open: async (url) => {
      await collect();
      // A different fragment alone would not load a new document: go through a blank page.
      await driver.get('about:blank');
      await driver.get(url);
      await hook();
    },
    reload: async () => {
      await collect();
      await driver.navigate().refresh();
      await hook();
    },
    reopen: async (url) => {
      await collect();
      const old = await driver.getWindowHandle();
      await driver.switchTo().newWindow('tab');
      const fresh = await driver.getWindowHandle();
      await driver.switchTo().window(old);
      await driver.close();
      await driver.switchTo().window(fresh);
      await driver
        .manage()
        .window()
        .setRect({ x: 0, y: 0, ...size });
      await driver.get(url);
      await hook();
    },
    pageErrors: async () => {
      await collect();
      return [...earlier];
    },
    find,
    attr: async (css, name) => {
      const element = await find(css);
      return element ? element.getAttribute(name).catch(() => undefined) : undefined;
    },
    text: async (css) => {
      const element = await find(css);
      return element ? element.getText().catch(() => undefined) : undefined;
    },
    shown: async (css) => {
      // Every element found may leave the page before it is asked about: then look again. Only an
      // answer says "not shown": a driver that fails to answer, or an element replaced at every
      // look, throws, so that a poll for `false` never passes on a question left unanswered.
      for (let tried = 1; ; tried++) {
        let stale = false;
        for (const element of await unstale(() => driver.findElements(By.css(css)))) {
          const shown = await element.isDisplayed().catch((error: unknown) => {
            if (!isStale(error)) throw error;
            stale = true;
            return false;
          });
          if (shown) return true;
        }
        if (!stale) return false;
        if (tried >= STALE_TRIES) throw new Error(`${css} left the page at every look`);
      }
    },
    clickButton: async (name, within) => {
      const literal = xpathLiteral(name);
      const xpath = `//button[normalize-space(.)=${literal} or @aria-label=${literal}]`;
      const button = await displayed(
        async () => {
          if (!within) return driver.findElements(By.xpath(xpath));
          const scope = await find(within);
          return scope ? scope.findElements(By.xpath(`.${xpath}`)) : [];
        },
        `a button named ${name}${within ? ` in ${within}` : ''}`,
      );
      await button.click();
    },
    click: async (css) => {
      await (await displayed(() => driver.findElements(By.css(css)), css)).click();
    },
    type: async (css, text) => {
      await (await displayed(() => driver.findElements(By.css(css)), css)).sendKeys(text);
    },
    keys: async (text) => {
      await driver.actions().sendKeys(text).perform();
    },
    run: (script, ...args) => driver.executeScript(script, ...args),
    processes: { xvfb: xvfb.pid, driverGroup: server.group },
    screenshot: async (path) => {
      writeFileSync(path, Buffer.from(await driver.takeScreenshot(), 'base64'));
    },
    stop: async () => {
      await driver.quit().catch(() => undefined);
      await server.stop();
      await xvfb.stop();
    },
  };
  return self;
}

/** How long (ms) an element to act on may take to show: the same as the tests' expect timeout. */
const ELEMENT_TIMEOUT_MS = 15_000;

/** Waits for the first displayed element of those `list` gives. */
async function displayed(list: () => Promise<WebElement[]>, what: string): Promise<WebElement> {
  const deadline = Date.now() + ELEMENT_TIMEOUT_MS;
  for (;;) {
    for (const element of await unstale(list)) {
      if (await element.isDisplayed().catch(() => false)) return element;
    }
    if (Date.now() > deadline) throw new Error(`nothing displayed: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Finds made while a page changes: WebKitWebDriver's find fails as stale when an element it
 * matched leaves the page before its handle is made. A find is tried again, a few times. */
const STALE_TRIES = 5;

function isStale(error: unknown): boolean {
  return error instanceof seleniumError.StaleElementReferenceError;
}

async function unstale(search: () => Promise<WebElement[]>): Promise<WebElement[]> {
  for (let tried = 1; ; tried++) {
    try {
      return await search();
    } catch (error) {
      if (!isStale(error) || tried >= STALE_TRIES) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

function xpathLiteral(text: string): string {
  if (!text.includes("'")) return `'${text}'`;
  if (!text.includes('"')) return `"${text}"`;
  return `concat('${text.split("'").join(`', "'", '`)}')`;
}
