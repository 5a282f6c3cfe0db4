// A tiny HTML template tag: every interpolated value is escaped unless it is already Html (built by this tag).
// Arrays are joined. Used by the server-rendered pages, which carry no script.

export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value
  }
}

const escapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }
const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => escapes[c] ?? c)

type Value = Html | string | number | null | undefined | false | Value[]

function render(v: Value): string {
  if (v === null || v === undefined || v === false) return ''
  if (v instanceof Html) return v.value
  if (Array.isArray(v)) return v.map(render).join('')
  return escapeHtml(String(v))
}

export function html(strings: TemplateStringsArray, ...values: Value[]): Html {
  let out = strings[0] ?? ''
  values.forEach((v, i) => {
    out += render(v) + (strings[i + 1] ?? '')
  })
  return new Html(out)
}
