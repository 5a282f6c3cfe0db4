import type { ConnectedApp, HistoryEntry, UnapprovedClient, UnapprovedClientDetail, UnapprovedClients } from '@gnap/domain/operator'
import { html, type Html } from './html'
import { errorIsAbout, formPage, problemUnder, renderPage, signInForm, type FormState } from './pages'

// The owner's own pages under /account (docs/protocol.md §2.12): server-rendered like the consent screen, plain
// forms without script, every value escaped by the html tag. Every form carries the session's CSRF token.

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December']
const pad2 = (n: number) => String(n).padStart(2, '0')

/** `1 December 2026 at 14:15 UTC`. */
export function formatWhen(d: Date): string {
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()] ?? ''} ${d.getUTCFullYear()} at ${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())} UTC`
}

const csrfField = (csrf: string) => html`<input type="hidden" name="csrf" value="${csrf}" />`

export function accountSignInPage(state: FormState): Response {
  return formPage(
    state,
    'Sign in to your account',
    html`<p class="eyebrow">Your account</p>
      <h1>Sign in to see the apps connected to your wallet</h1>
      ${signInForm('/account/sign-in', state.error)}`,
  )
}

const NOTICES: Record<string, string> = {
  revoked: 'Access revoked. The app can no longer use your wallet.',
  'password-changed': 'Your password has been changed. You have been signed out everywhere else.',
  'client-revoked': 'Access revoked for every grant of that app you had not approved. Its other access is unchanged.',
}

/** What the app can do, each access in words with its amounts and times: on its card and on the revoke confirmation. */
function accessList(app: ConnectedApp): Html {
  return html`<ul>
    ${app.access.map(
      (a) =>
        html`<li>
          <strong>${a.title}</strong>${
            a.lines.length
              ? html`<ul>
                  ${a.lines.map((l) => html`<li>${l}</li>`)}
                </ul>`
              : null
          }
        </li>`,
    )}
  </ul>`
}

function appCard(app: ConnectedApp): Html {
  return html`<section class="item app" aria-labelledby="app-${app.grantId}">
    <h3 id="app-${app.grantId}">${app.clientName}</h3>
    <p class="client">Wallet address: <span>${app.clientWalletAddress}</span></p>
    <p class="can">It can:</p>
    ${accessList(app)}
    <dl class="facts">
      <dt>Approved</dt>
      <dd>${app.approvedAt ? formatWhen(app.approvedAt) : 'Did not need your approval (receiving payments only)'}</dd>
      <dt>Last token issued</dt>
      <dd>${app.lastTokenAt ? formatWhen(app.lastTokenAt) : 'Not yet'}</dd>
      <dt>Access ends</dt>
      <dd>${app.endsAt ? formatWhen(app.endsAt) : 'Not until you revoke it'}</dd>
    </dl>
    <p>
      <a class="button danger" href="/account/apps/${encodeURIComponent(app.grantId)}/revoke" aria-describedby="app-${app.grantId}">Revoke access</a>
    </p>
  </section>`
}

const HISTORY_WORDS: Record<HistoryEntry['what'], string> = { approved: 'You approved', denied: 'You denied', revoked: 'Access revoked for' }

function historyLine(entry: HistoryEntry): Html {
  const by =
    entry.what === 'revoked' ? (entry.by === 'you' ? ' by you' : entry.by === 'an administrator' ? ' by an administrator' : ' by the app itself') : ''
  return html`<li><span class="when">${formatWhen(entry.at)}</span> ${HISTORY_WORDS[entry.what]} ${entry.clientName}${by}</li>`
}

/** `1,500`. */
const number = (n: number) => n.toLocaleString('en-GB')
/** `1 grant`, `500 grants`. */
const counted = (n: number, word: string) => `${number(n)} ${word}${n === 1 ? '' : 's'}`
const grantsWord = (n: number) => counted(n, 'grant')

/** A client's grants nobody approved: who, how many, and the way to revoke them all. */
function unapprovedCard(client: UnapprovedClient, index: number): Html {
  const id = `client-${index}`
  return html`<section class="item app" aria-labelledby="${id}">
    <h3 id="${id}">${client.clientName}</h3>
    <p class="client">Wallet address: <span>${client.clientWalletAddress}</span></p>
    <dl class="facts">
      <dt>Grants</dt>
      <dd>${grantsWord(client.grants)}</dd>
      <dt>Newest</dt>
      <dd>${formatWhen(client.newestAt)}</dd>
    </dl>
    <p>
      <a
        class="button danger"
        href="/account/clients/revoke?${new URLSearchParams({ client: client.clientWalletAddress }).toString()}"
        aria-describedby="${id}"
        >Revoke all ${number(client.grants)} from this app</a
      >
    </p>
  </section>`
}

/** `/account` showing another page of one list; the other list stays on its page. */
const pageLink = (pages: { apps: number; clients: number }) => {
  const query = new URLSearchParams()
  if (pages.apps > 0) query.set('apps', String(pages.apps))
  if (pages.clients > 0) query.set('clients', String(pages.clients))
  return `/account${query.size ? `?${query.toString()}` : ''}`
}

export function accountPage(view: {
  owner: { name: string; email: string; walletAddresses: string[] }
  apps: { apps: ConnectedApp[]; next: number | null }
  unapproved: UnapprovedClients
  /** Where each list's shown page starts. */
  pages: { apps: number; clients: number }
  history: HistoryEntry[]
  csrf: string
  notice: string | null
}): Response {
  const notice = view.notice ? NOTICES[view.notice] : undefined
  return renderPage(
    200,
    'Your connected apps',
    html`<p class="eyebrow">Your account</p>
      <h1>Apps connected to your wallet</h1>
      <p class="who">Signed in as ${view.owner.name} (${view.owner.email})</p>
      ${notice ? html`<p class="notice" role="status">${notice}</p>` : null}
      <h2 id="apps">Apps you approved</h2>
      ${
        view.apps.apps.length === 0
          ? html`<p>${view.pages.apps > 0 ? 'No more apps.' : 'You have not approved any app that still has access.'}</p>`
          : html`<div aria-labelledby="apps">${view.apps.apps.map(appCard)}</div>`
      }
      ${view.apps.next === null ? null : html`<p><a class="onward" href="${pageLink({ ...view.pages, apps: view.apps.next })}">More apps you approved</a></p>`}
      <h2 id="unapproved">Apps you never approved</h2>
      ${
        view.unapproved.totalGrants === 0
          ? html`<p>None.</p>`
          : html`<p>
                Access to receive payments or get quotes needs no approval, so any app can get it on your wallet addresses. You never approved these:
                ${grantsWord(view.unapproved.totalGrants)} in all, from ${counted(view.unapproved.totalClients, 'app')}. Revoke an app you do not
                know.
              </p>
              <div aria-labelledby="unapproved">${view.unapproved.clients.map((c, i) => unapprovedCard(c, view.pages.clients + i))}</div>`
      }
      ${
        view.unapproved.next === null
          ? null
          : html`<p><a class="onward" href="${pageLink({ ...view.pages, clients: view.unapproved.next })}">More apps you never approved</a></p>`
      }
      <h2 id="history">Recent activity</h2>
      ${
        view.history.length === 0
          ? html`<p>Nothing yet.</p>`
          : html`<ul class="history" aria-labelledby="history">
              ${view.history.map(historyLine)}
            </ul>`
      }
      <h2>Your wallet addresses</h2>
      <ul class="addresses">
        ${view.owner.walletAddresses.map((wa) => html`<li>${wa}</li>`)}
      </ul>
      <p><a class="onward" href="/account/password">Change your password</a></p>
      <form method="post" action="/account/sign-out" class="note">
        ${csrfField(view.csrf)}
        <button class="link" type="submit">Sign out</button>
      </form>`,
  )
}

export function revokeConfirmPage(app: ConnectedApp, csrf: string): Response {
  return renderPage(
    200,
    `Revoke access for ${app.clientName}?`,
    html`<p class="eyebrow">Your account</p>
      <h1>Revoke access for ${app.clientName}?</h1>
      <p class="client">Wallet address: <span>${app.clientWalletAddress}</span></p>
      <p>It will stop at once: the app can no longer do any of this.</p>
      ${accessList(app)}
      <p>To give it access again, the app has to ask you again.</p>
      <form method="post" action="/account/apps/${encodeURIComponent(app.grantId)}/revoke">
        ${csrfField(csrf)}
        <div class="actions">
          <button class="primary danger" type="submit">Revoke access</button>
          <a class="button secondary" href="/account">Keep access</a>
        </div>
      </form>`,
  )
}

const ACCESS_WORDS: Record<string, string> = {
  'incoming-payment': 'receive payments into your wallet',
  quote: 'get quotes',
  'outgoing-payment': 'send payments from your wallet',
}

/** The confirmation of revoking every grant of one client that the owner never approved: how many, and what they allow. */
export function revokeClientConfirmPage(client: UnapprovedClientDetail, csrf: string): Response {
  const count = number(client.grants)
  return renderPage(
    200,
    `Revoke all ${count} from ${client.clientName}?`,
    html`<p class="eyebrow">Your account</p>
      <h1>Revoke all ${count} from ${client.clientName}?</h1>
      <p class="client">Wallet address: <span>${client.clientWalletAddress}</span></p>
      <p>You never approved these ${grantsWord(client.grants)}. Revoking them stops at once what they let the app do:</p>
      <ul>
        ${client.access.map((a) => html`<li>${grantsWord(a.grants)} to ${ACCESS_WORDS[a.type] ?? a.type}</li>`)}
      </ul>
      <p>Any access you approved for this app stays as it is.</p>
      <form method="post" action="/account/clients/revoke">
        ${csrfField(csrf)}
        <input type="hidden" name="client" value="${client.clientWalletAddress}" />
        <div class="actions">
          <button class="primary danger" type="submit">Revoke all ${count}</button>
          <a class="button secondary" href="/account">Keep them</a>
        </div>
      </form>`,
  )
}

/** The owner's password form; the state's field is `current`, `new` or `confirm` (null: above the form). */
export function passwordPage(view: { csrf: string; minLength: number }, state: FormState): Response {
  const about = (field: 'current' | 'new' | 'confirm') => errorIsAbout(state, field)
  // A field the error is about points to it and is marked invalid; "new" keeps its hint as well.
  const marked = (field: 'current' | 'confirm') => (about(field) ? html`aria-describedby="problem" aria-invalid="true"` : null)
  return formPage(
    state,
    'Change your password',
    html`<p class="eyebrow">Your account</p>
      <h1>Change your password</h1>
      <p>Changing it signs you out everywhere else.</p>
      ${problemUnder(state, null)}
      <form class="sign-in" method="post" action="/account/password">
        ${csrfField(view.csrf)}
        <label for="current">Current password</label>
        <input id="current" name="current" type="password" autocomplete="current-password" required ${marked('current')} />
        ${problemUnder(state, 'current')}
        <label for="new">New password</label>
        <input
          id="new"
          name="new"
          type="password"
          autocomplete="new-password"
          minlength="${view.minLength}"
          required
          aria-describedby="new-hint${about('new') ? ' problem' : ''}"
          ${about('new') ? html`aria-invalid="true"` : null}
        />
        <p class="hint" id="new-hint">At least ${view.minLength} characters, not your email address.</p>
        ${problemUnder(state, 'new')}
        <label for="confirm">New password again</label>
        <input id="confirm" name="confirm" type="password" autocomplete="new-password" required ${marked('confirm')} />
        ${problemUnder(state, 'confirm')}
        <button class="primary" type="submit">Change password</button>
      </form>
      <p><a class="onward" href="/account">Back to your apps</a></p>`,
  )
}
