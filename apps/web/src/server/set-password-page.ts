import { PASSWORD_LENGTH, PASSWORD_RULES_TEXT } from '@gnap/domain'
import { html } from './html'
import { renderPage } from './pages'

// The page an owner's or an administrator's one-time link opens (docs/protocol.md §7, §2.14): a new password, typed
// twice. It posts to its own URL, so the link's secret never leaves the address bar, and carries no script.

export function setPasswordPage(view: {
  accountName: string
  invitation: boolean
  /** Shown under the field it is about: the new password, or its second typing. */
  error: { text: string; field: 'password' | 'confirm' } | null
  status?: number
  headers?: Record<string, string>
}): Response {
  const title = view.invitation ? 'Choose your password' : 'Choose a new password'
  const about = (field: 'password' | 'confirm') => view.error?.field === field
  const problem = (field: 'password' | 'confirm') =>
    view.error && about(field) ? html`<p id="problem" class="error" role="alert">${view.error.text}</p>` : null
  // The ids that describe a field (its hint, the error about it), and the error's mark.
  const described = (field: 'password' | 'confirm', hint: string | null) => {
    const ids = [hint, about(field) ? 'problem' : null].filter((id) => id !== null).join(' ')
    return ids === '' ? null : html`aria-describedby="${ids}" ${about(field) ? html`aria-invalid="true"` : null}`
  }
  const lengths = html`minlength="${PASSWORD_LENGTH.min}" maxlength="${PASSWORD_LENGTH.max}"`
  return renderPage(
    view.status ?? 200,
    title,
    html`<p class="eyebrow">${view.invitation ? 'Welcome' : 'Password reset'}</p>
      <h1>${title}</h1>
      <p class="who">For ${view.accountName}.</p>
      <form class="sign-in" method="post">
        <label for="password">New password</label>
        <input id="password" name="password" type="password" autocomplete="new-password" ${lengths} required ${described('password', 'rules')} />
        <p id="rules" class="note">${PASSWORD_RULES_TEXT}</p>
        ${problem('password')}
        <label for="confirm">Type it again</label>
        <input
          id="confirm"
          name="confirm"
          type="password"
          autocomplete="new-password"
          maxlength="${PASSWORD_LENGTH.max}"
          required
          ${described('confirm', null)}
        />
        ${problem('confirm')}
        <button class="primary" type="submit">Set password</button>
      </form>`,
    view.headers,
  )
}
