import { GnapError } from '@gnap/domain/kernel'
import { type ConsentClient } from '@gnap/domain/protocol'
import { html, type Html } from './html'

// Server-rendered HTML pages of the front channel: the consent screen and every message a person may see. Plain
// forms, no script, one stylesheet; every value is escaped by the html tag.

export function renderPage(status: number, title: string, body: Html, headers: Record<string, string> = {}): Response {
  const page = html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <title>${title}</title>
        <link rel="icon" href="/favicon.svg" type="image/svg+xml" />
        <link rel="stylesheet" href="/pages.css" />
      </head>
      <body>
        <main>${body}</main>
      </body>
    </html>`
  return new Response(page.value, { status, headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', ...headers } })
}

/**
 * Why a page with a form is shown, which decides its status: `shown` first or after a plain miss (200), `invalid`
 * input refused (400), `disabled` account (403, docs/protocol.md §2.13), `too-many` attempts (429 with Retry-After).
 */
/** `field`: the form field an error is shown under (its input's id); null, above the form. */
export type FormState =
  | { outcome: 'shown' | 'invalid' | 'disabled'; error: string | null; field: string | null }
  | { outcome: 'too-many'; error: string; retryAfterSeconds: number; field: null }

/** The statuses of the form pages: a form page never takes a status of its own. */
const FORM_STATUS: Readonly<Record<FormState['outcome'], number>> = { shown: 200, invalid: 400, disabled: 403, 'too-many': 429 }

export const formState = {
  shown: (error: string | null = null): FormState => ({ outcome: 'shown', error, field: null }),
  invalid: (error: string, field: string | null = null): FormState => ({ outcome: 'invalid', error, field }),
  disabled: (error: string): FormState => ({ outcome: 'disabled', error, field: null }),
  tooMany: (error: string, retryAfterSeconds: number): FormState => ({ outcome: 'too-many', error, retryAfterSeconds, field: null }),
}

/** Whether the state's error is shown under `field` (null: above the form). */
export const errorIsAbout = (state: FormState, field: string | null): boolean => state.error !== null && state.field === field

/** The error's paragraph where it is about `field`, else nothing; `id="problem"` for the field's aria-describedby. */
export const problemUnder = (state: FormState, field: string | null): Html | null =>
  errorIsAbout(state, field) ? html`<p class="error" id="problem" role="alert">${state.error}</p>` : null

/** A page with a form, its status and headers from its state. */
export function formPage(state: FormState, title: string, body: Html): Response {
  return renderPage(FORM_STATUS[state.outcome], title, body, state.outcome === 'too-many' ? { 'retry-after': String(state.retryAfterSeconds) } : {})
}

/** A sign-in or password check refused by the sign-in limits (a 429 GnapError) as the form's state; null for any other failure. */
export function tooManySignIns(e: unknown): FormState | null {
  if (!(e instanceof GnapError) || e.status !== 429) return null
  const wait = e.retryAfterSeconds ?? 60
  const message = wait < 60 ? `Too many sign-ins right now. Try again in ${wait} s.` : 'Too many failed sign-ins. Wait a few minutes, then try again.'
  return formState.tooMany(message, wait)
}

/**
 * A message page: what happened and what the person can do, with an optional link onwards (an http(s) URL only:
 * a page never links to a script or data URL). Only the named pages of message-pages.ts call it.
 */
export function messagePage(
  status: number,
  title: string,
  message: string,
  link?: { href: string; text: string },
  headers: Record<string, string> = {},
): Response {
  const href = link && /^https?:\/\//i.test(link.href) ? link.href : null
  return renderPage(
    status,
    title,
    html`<h1>${title}</h1>
      <p>${message}</p>
      ${link && href ? html`<p><a class="onward" href="${href}" rel="noreferrer">${link.text}</a></p>` : null}`,
    headers,
  )
}

const clientLine = (client: ConsentClient) => html`<p class="client">Client wallet address: <span>${client.walletAddress}</span></p>`

export function signInPage(client: ConsentClient, state: FormState): Response {
  return formPage(
    state,
    'Sign in to review the request',
    html`<p class="eyebrow">Authorization request</p>
      <h1>Sign in to review what ${client.name} asks for</h1>
      ${clientLine(client)} ${signInForm('sign-in', state.error)}`,
  )
}

const signOut = (csrf: string, ownerName: string) =>
  html`<form method="post" action="sign-out" class="note">
    <input type="hidden" name="csrf" value="${csrf}" />
    Signed in as ${ownerName}. <button class="link" type="submit">Sign out</button>
  </form>`

/** What a subject request asks, one line per wallet address (docs/protocol.md §2.11). */
const subjectLines = (client: ConsentClient, subIds: string[]) =>
  html`<ul class="subjects">
    ${subIds.map((id) => html`<li>${client.name} asks you to confirm that you control <span class="wallet">${id}</span></li>`)}
  </ul>`

export function consentPage(view: {
  client: ConsentClient
  ownerName: string
  items: { title: string; lines: string[] }[]
  subIds: string[]
  csrf: string
}): Response {
  const asksAccess = view.items.length > 0
  const asksSubject = view.subIds.length > 0
  const title = asksAccess ? `${view.client.name} asks for access` : `${view.client.name} asks you to confirm your wallet address`
  return renderPage(
    200,
    title,
    html`<p class="eyebrow">Authorization request</p>
      <h1>${asksAccess ? `${view.client.name} asks for access to your account` : title}</h1>
      ${clientLine(view.client)}
      ${
        asksSubject
          ? html`<h2 id="confirm">Confirm your wallet address</h2>
              <section class="item" aria-labelledby="confirm">
                ${subjectLines(view.client, view.subIds)}
                <p class="who">
                  If you approve, ${view.client.name} learns that you control
                  ${view.subIds.length === 1 ? 'this wallet address' : 'these wallet addresses'}.${
                    asksAccess ? '' : ' It gets no access to your account from this.'
                  }
                </p>
              </section>`
          : null
      }
      ${
        asksAccess
          ? html`<h2 id="asks">If you approve, ${view.client.name} can:</h2>
              <div aria-labelledby="asks">
                ${view.items.map(
                  (item) =>
                    html`<section class="item" aria-label="${item.title}">
                      <h3>${item.title}</h3>
                      <ul>
                        ${item.lines.map((line) => html`<li>${line}</li>`)}
                      </ul>
                    </section>`,
                )}
              </div>`
          : null
      }
      <form method="post" action="decision">
        <input type="hidden" name="csrf" value="${view.csrf}" />
        <div class="actions">
          <button class="primary" type="submit" name="choice" value="approve">Approve</button>
          <button class="secondary" type="submit" name="choice" value="deny">Deny</button>
        </div>
      </form>
      ${signOut(view.csrf, view.ownerName)}`,
  )
}

export function notYoursPage(view: { client: ConsentClient; ownerName: string; subIds: string[]; csrf: string }): Response {
  return renderPage(
    403,
    'Not your account',
    html`<p class="eyebrow">Authorization request</p>
      <h1>This request is for another account</h1>
      ${clientLine(view.client)} ${view.subIds.length > 0 ? subjectLines(view.client, view.subIds) : null}
      <p>
        ${view.client.name} asks about wallet addresses that do not belong to the account you are signed in with, so you cannot approve this request.
        Sign out and sign in with the account that owns them, or go back to ${view.client.name}.
      </p>
      ${signOut(view.csrf, view.ownerName)}`,
  )
}

/** The owner's sign-in form (the consent screen's and /account's): email, password, the refusal if any. */
export function signInForm(action: string, error: string | null | undefined) {
  return html`<form class="sign-in" method="post" action="${action}">
    <label for="email">Email</label>
    <input id="email" name="email" type="email" autocomplete="username" required />
    <label for="password">Password</label>
    <input id="password" name="password" type="password" autocomplete="current-password" required />
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
    <button class="primary" type="submit">Sign in</button>
  </form>`
}
