// What the end-to-end tests of the web console share: the environment (the login URL, the
// admin kubeconfig), kubectl, waiting for what the user sees, the browser, the page's parts as
// locators, and the run of a list of scenarios.
//
// KS_SCREENSHOT_DIR, when set, receives a screenshot after each scenario (and of a failure),
// named after the suite; KS_CHROMIUM names another Chromium binary than Debian's.
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

export const TIMEOUT_MS = 15_000;
export const LOGIN = process.env.KS_WEB_LOGIN;
const SCREENSHOTS = process.env.KS_SCREENSHOT_DIR;
const CHROMIUM = process.env.KS_CHROMIUM ?? '/usr/bin/chromium';

if (!LOGIN || !process.env.KUBECONFIG) {
  console.error('KS_WEB_LOGIN and KUBECONFIG must be set');
  process.exit(2);
}
// The console's address ("http://127.0.0.1:PORT/").
export const WEB = LOGIN.slice(0, LOGIN.indexOf('login?'));
export const CONFIGMAPS = '#/r/core/v1/configmaps?ns=default';

export function kubectl(...args) {
  return execFileSync('kubectl', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

// kubectl with an environment added (KUBE_EDITOR for `kubectl edit`).
export function kubectlWith(env, ...args) {
  return execFileSync('kubectl', args, { encoding: 'utf8', env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

// kubectl apply of an object given as JSON.
export function kubectlApply(object) {
  execFileSync('kubectl', ['apply', '-f', '-'], { input: JSON.stringify(object), stdio: ['pipe', 'ignore', 'pipe'] });
}

export function kubectlFails(...args) {
  try {
    execFileSync('kubectl', args, { stdio: 'ignore' });
    return false;
  } catch {
    return true;
  }
}

// One field of an object as kubectl reads it (a jsonpath).
export function kubectlField(kind, name, path, namespace = 'default') {
  return kubectl('get', kind, name, '-n', namespace, '-o', `jsonpath={${path}}`);
}

// Polls until check() returns a truthy value (or stops throwing); then returns that value.
export async function eventually(what, check, timeoutMs = TIMEOUT_MS) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    try {
      const value = await check();
      if (value) {
        return value;
      }
      last = undefined;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${last.message}` : ''}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

// Waits for a locator to be visible (or hidden), with a message naming what was expected.
export async function see(locator, what, state = 'visible') {
  try {
    await locator.first().waitFor({ state, timeout: TIMEOUT_MS });
  } catch (error) {
    throw new Error(`expected ${what} to be ${state}: ${error.message.split('\n')[0]}`);
  }
}

export async function textOf(locator) {
  return (await locator.innerText({ timeout: TIMEOUT_MS })).replace(/\s+/g, ' ');
}

// Fails with both values unless they are equal (as JSON).
export function same(what, actual, expected) {
  const [a, e] = [JSON.stringify(actual), JSON.stringify(expected)];
  if (a !== e) {
    throw new Error(`${what}: expected ${e}, got ${a}`);
  }
}

// Chromium, headless, and a page in a context of its own (options: newContext's).
export async function openBrowser(contextOptions = {}) {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const context = await browser.newContext({ viewport: { width: 1600, height: 1000 }, ...contextOptions });
  const page = await context.newPage();
  return { browser, context, page };
}

// The rows of an ARIA grid in the order shown (by aria-rowindex: the rows are virtualized, their
// elements reused), each as its row header's text and its cells' texts.
export async function gridRows(grid) {
  const rows = await grid.locator('.grid-body [role="row"]').evaluateAll((elements) =>
    elements
      .filter((e) => !e.hidden && e.getAttribute('aria-rowindex'))
      .map((e) => ({
        index: Number(e.getAttribute('aria-rowindex')),
        name: e.querySelector('[role="rowheader"]')?.textContent ?? '',
        cells: [...e.querySelectorAll('[role="gridcell"], [role="rowheader"]')].map((c) => c.textContent ?? ''),
      })),
  );
  return rows.sort((a, b) => a.index - b.index).map(({ name, cells }) => ({ name, cells }));
}

// The console's parts, as a user finds them.
export function consoleParts(page) {
  const table = page.locator('.table-pane [role="grid"]');
  const detail = page.locator('.detail-pane');
  const actions = page.getByRole('toolbar', { name: 'Object actions' });
  const parts = {
    table,
    rowNamed: (name) => table.getByRole('row').filter({ has: page.getByRole('rowheader', { name, exact: true }) }),
    events: page.locator('.events-pane [role="grid"]'),
    eventsPane: page.locator('.events-pane'),
    detail,
    actions,
    action: (name) => actions.getByRole('button', { name, exact: true }),
    outcome: detail.locator('.outcome'),
    editor: page.getByRole('textbox', { name: 'YAML to apply or create' }),
    // Signs in with the login URL, which then leaves for the view the fragment names.
    async signIn(fragment) {
      await page.goto(`${LOGIN}${fragment}`);
      await eventually('the page at the deep link', () => page.url() === `${WEB}${fragment}`);
    },
    // Opens the object of a row in the detail pane (its title ends with the name: "name: a"
    // in the YAML alone would also match the YAML of a-copy).
    async openObject(name) {
      await parts.rowNamed(name).getByRole('rowheader').click();
      const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      await see(detail.locator('#detail-title').filter({ hasText: new RegExp(`[ /]${escaped}$`) }), `the title of ${name}`);
      await see(detail.locator('pre.yaml').filter({ hasText: `name: ${name}` }), `the YAML of ${name}`);
    },
    // Opens the editor on the object shown.
    async edit() {
      await parts.action('Edit').click();
      await see(parts.editor, 'the YAML editor');
    },
    // Puts the editor's cursor at the end of the line holding `text`. (Each key CodeMirror
    // handles is awaited as drawn before the next is typed: typed at once, a key could land
    // before the editor had put its selection into the page.)
    async toEndOfLine(text) {
      await parts.editor.locator('.cm-line').filter({ hasText: text }).first().click();
      await see(detail.locator('.yaml-editor .cm-activeLine').filter({ hasText: text }), `the cursor on "${text}"`);
      await page.keyboard.press('End');
    },
    // Types `text` at the editor's cursor key by key, each awaited as drawn on the cursor's line
    // (typed at once, keys can overtake the editor's own update of the page). A failure says
    // what the line held and where the focus was.
    async typeInEditor(text) {
      const cursorLine = detail.locator('.yaml-editor .cm-activeLine');
      for (let i = 0; i < text.length; i += 1) {
        await page.keyboard.type(text[i]);
        const typed = text.slice(0, i + 1);
        try {
          await see(cursorLine.filter({ hasText: typed }), `"${typed}" typed in the editor`);
        } catch (error) {
          const held = await cursorLine.textContent({ timeout: 1000 }).catch(() => '(no line has the cursor)');
          const focus = await page.evaluate(() => {
            let element = document.activeElement;
            while (element?.shadowRoot?.activeElement) {
              element = element.shadowRoot.activeElement;
            }
            if (!element) {
              return 'nothing';
            }
            const label = element.getAttribute('aria-label');
            return `<${element.tagName.toLowerCase()} class="${element.className}"${label ? ` aria-label="${label}"` : ''}>`;
          });
          throw new Error(`${error.message} (the cursor's line holds "${held}"; the focus is on ${focus})`);
        }
      }
    },
    // Types `replacement` over the line holding `text` (its indentation kept), by keyboard.
    async retypeLine(text, replacement) {
      await parts.toEndOfLine(text);
      await page.keyboard.press('Shift+Home');
      await see(detail.locator('.yaml-editor .cm-selectionBackground'), `"${text}" selected`);
      await parts.typeInEditor(replacement);
    },
    // Types `line` on a new line after the one holding `text`, by keyboard.
    async typeLineAfter(text, line) {
      await parts.toEndOfLine(text);
      const lines = await parts.editor.locator('.cm-line').count();
      await page.keyboard.press('Enter');
      await eventually(`a new line after "${text}"`, async () => (await parts.editor.locator('.cm-line').count()) === lines + 1);
      await see(detail.locator('.yaml-editor .cm-activeLine').filter({ hasText: /^\s*$/ }), 'the cursor on the new line');
      await parts.typeInEditor(line);
    },
    // The names of the table's rows in the order shown.
    async rowNames() {
      return (await gridRows(table)).map((row) => row.name);
    },
  };
  return parts;
}

// Runs the scenarios in order, each named; the first failure ends the run with exit status 1.
export async function runScenarios(suite, { browser, page }, scenarios) {
  const pageErrors = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  let failed = false;
  try {
    if (SCREENSHOTS) {
      mkdirSync(SCREENSHOTS, { recursive: true });
    }
    for (const [index, [name, run]] of scenarios.entries()) {
      try {
        await run();
        if (pageErrors.length > 0) {
          throw new Error(`errors in the page: ${pageErrors.join('; ')}`);
        }
      } catch (error) {
        console.error(`FAIL ${suite} ${index + 1} ${name}: ${error.message}`);
        if (SCREENSHOTS) {
          await page.screenshot({ path: join(SCREENSHOTS, `${suite}-failed-${index + 1}.png`) }).catch(() => {});
        }
        failed = true;
        break;
      }
      if (SCREENSHOTS) {
        await page.screenshot({ path: join(SCREENSHOTS, `${suite}-${index + 1}.png`) });
      }
      console.log(`ok ${suite} ${index + 1} ${name}`);
    }
  } finally {
    await browser.close();
  }
  process.exit(failed ? 1 : 0);
}
