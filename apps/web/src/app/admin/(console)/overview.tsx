'use client'

import { useQuery } from '@tanstack/react-query'
import { useRouter } from 'next/navigation'
import { useMemo, useState, type FormEvent } from 'react'
import { useTRPC } from '../_lib/trpc'
import { errorMessage } from '../_lib/errors'
import { formatDay } from '../_lib/format'
import { ErrorMessage, Loading } from '../_components/ui'
import { ActivityChart } from './activity-chart'

export function Overview({ from, to, days }: { from: string; to: string; days: number }) {
  const trpc = useTRPC()
  const input = useMemo(() => ({ from: new Date(from), to: new Date(to) }), [from, to])
  const stats = useQuery(trpc.stats.overview.queryOptions(input))
  const lastDay = new Date(input.to.getTime() - 1)

  return (
    <>
      <div className="page-head">
        <div>
          <h1>Overview</h1>
          <p>
            The last {days} days, {formatDay(input.from)} to {formatDay(lastDay)} (UTC): grants requested in that time by their state now, and what
            happened to tokens.
          </p>
        </div>
      </div>

      {stats.isPending && <Loading>Loading the figures…</Loading>}
      {stats.isError && (
        <ErrorMessage
          title="The figures could not be loaded."
          action={
            <button type="button" className="button secondary" onClick={() => void stats.refetch()}>
              Try again
            </button>
          }
        >
          {errorMessage(stats.error)}
        </ErrorMessage>
      )}
      {stats.data && (
        <div className="stack">
          <div className="grid-2">
            <section className="panel" aria-labelledby="grants-heading">
              <h2 id="grants-heading">Grants</h2>
              <ul className="stats">
                <Stat className="total" value={stats.data.grants.total} label="Total" />
                <Stat value={stats.data.grants.pending} label="Pending" />
                <Stat value={stats.data.grants.approved} label="Approved" />
                <Stat value={stats.data.grants.issued} label="Issued" />
                <Stat value={stats.data.grants.revoked} label="Revoked" />
                <Stat value={stats.data.grants.rejected} label="Rejected" />
                <Stat value={stats.data.grants.expired} label="Expired" />
              </ul>
            </section>
            <section className="panel" aria-labelledby="tokens-heading">
              <h2 id="tokens-heading">Access tokens</h2>
              <ul className="stats">
                <Stat value={stats.data.tokens.issued} label="Issued" />
                <Stat value={stats.data.tokens.rotated} label="Rotated" />
                <Stat value={stats.data.tokens.revoked} label="Revoked" />
                <Stat value={stats.data.tokens.expired} label="Expired" />
              </ul>
              <p className="hint">
                Issued counts first tokens and rotations alike; expired counts tokens that ran out without being rotated or revoked.
              </p>
            </section>
          </div>
          <section className="panel" aria-labelledby="activity-heading">
            <h2 id="activity-heading">Grants and rotations per day</h2>
            <ActivityChart series={stats.data.series} />
          </section>
        </div>
      )}
      <TokenLookup />
    </>
  )
}

function Stat({ value, label, className }: { value: number; label: string; className?: string }) {
  return (
    <li className={className}>
      <span className="stat-value">{value.toLocaleString('en-GB')}</span> <span className="stat-label">{label}</span>
    </li>
  )
}

/** A resource server or a client quotes a token's management id (the end of its manage URL): open its page. */
function TokenLookup() {
  const router = useRouter()
  const [value, setValue] = useState('')
  function submit(e: FormEvent) {
    e.preventDefault()
    // The last path segment, so a whole manage URL can be pasted too.
    const id = value.trim().replace(/\/+$/, '').split('/').pop() ?? ''
    if (id) router.push(`/admin/tokens/${encodeURIComponent(id)}`)
  }
  return (
    <section className="panel" aria-labelledby="lookup-heading">
      <h2 id="lookup-heading">Find a token</h2>
      <p className="muted">Resource servers and clients quote a token by its management id, the end of its manage URL.</p>
      <form onSubmit={submit} className="inline-form">
        <div className="grow">
          <label htmlFor="token-lookup">Management id or manage URL</label>
          <input id="token-lookup" value={value} onChange={(e) => setValue(e.target.value)} required autoComplete="off" spellCheck={false} />
        </div>
        <button type="submit" className="button secondary">
          Open token
        </button>
      </form>
    </section>
  )
}
