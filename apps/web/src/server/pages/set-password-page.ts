import { PASSWORD_LENGTH, PASSWORD_RULES_TEXT } from '@gnap/domain/operator'
import { html } from './html'
import { errorIsAbout, formPage, problemUnder, type FormState } from './pages'

// The page an owner's or an administrator's one-time link opens (docs/protocol.md §7, §2.14): a new password, typed
// twice. It posts to its own URL, so the link's secret never leaves the address bar, and carries no script.

export function setPasswordPage(view: { accountName: string; invitation: boolean }, state: FormState): Response {
  const title = view.invitation ? 'Choose your password' : 'Choose a new password'
  // The ids that describe a field (its hint, the error about it), and the error's mark.
  const described = (field: 'password' | 'confirm', hint: string | null) => {
    const about = errorIsAbout(state, field)
    const ids = [hint, about ? 'problem' : null].filter((id) => id !== null).join(' ')
    return ids === '' ? null : html`aria-describedby="${ids}" ${about ? html`aria-invalid="true"` : null}`
  }
  const lengths = html`minlength="${PASSWORD_LENGTH.min}" maxlength="${PASSWORD_LENGTH.max}"`
  return formPage(
    state,
    title,
    html`<p class="eyebrow">${view.invitation ? 'Welcome' : 'Password reset'}</p>
      <h1>${title}</h1>
      <p class="who">For ${view.accountName}.</p>
      ${problemUnder(state, null)}
      <form class="sign-in" method="post">
        <label for="password">New password</label>
        <input id="password" name="password" type="password" autocomplete="new-password" ${lengths} required ${described('password', 'rules')} />
        <p id="rules" class="note">${PASSWORD_RULES_TEXT}</p>
        ${problemUnder(state, 'password')}
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
        ${problemUnder(state, 'confirm')}
        <button class="primary" type="submit">Set password</button>
      </form>`,
  )
}
