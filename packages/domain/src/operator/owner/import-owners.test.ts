import { describe, expect, it } from 'vitest'
import { databaseText } from '../../testing/deps'
import { useTestDeps } from '../../testing/use-test-deps'
import { createOwner } from './create-owner'
import { importOwners } from './import-owners'
import { parseOwnerFile, ownerFileFormat } from './owner-import-file'
import { checkPasswordLink } from '../password-link/set-password-with-link'
import { findOwnerByEmail } from './owner.repo'
import { verifyPassword } from '../sign-in/password'

const t = useTestDeps()

const CSV = `email,name,wallet_addresses
alice@example.com,Alice,https://wallet.example/alice
 Bob@Example.COM ,"Bob, Jr.",https://wallet.example/bob;https://pay.example/bob/
carol@example.com,Carol,https://WALLET.example/carol https://wallet.example/carol2
not-an-email,Nobody,https://wallet.example/nobody
dave@example.com,,https://wallet.example/dave
erin@example.com,Erin,ftp://wallet.example/erin
frank@example.com,Frank,https://wallet.example/alice
BOB@example.com,Bob,https://wallet.example/bob
`

const run = (text: string, name = 'owners.csv') => importOwners(t.deps, parseOwnerFile(text, ownerFileFormat(name, text)))
const outcomes = (r: Awaited<ReturnType<typeof run>>) => r.rows.map((row) => [row.line, row.outcome, row.detail])
const counts = async () => ({
  owners: await t.db.owner.count(),
  addresses: await t.db.ownerWalletAddress.count(),
  links: await t.db.passwordLink.count(),
})

describe('importOwners', () => {
  it('creates good rows, refuses bad ones with a reason, and never duplicates an email', async () => {
    const report = await run(CSV)
    expect(outcomes(report)).toEqual([
      [2, 'created', null],
      [3, 'created', null],
      [4, 'created', null],
      [5, 'refused', '"not-an-email" is not an email address'],
      [6, 'refused', 'no name'],
      [7, 'refused', 'wallet address "ftp://wallet.example/erin" is not an http(s) URL'],
      [8, 'refused', 'the wallet address https://wallet.example/alice already belongs to another owner'],
      [9, 'refused', 'the same email is on line 3: one row per owner'],
    ])
    const bob = await t.db.owner.findUniqueOrThrow({ where: { email: 'bob@example.com' }, include: { walletAddresses: true } })
    expect(bob.name).toBe('Bob, Jr.')
    expect(bob.walletAddresses.map((w) => w.url).sort()).toEqual(['https://pay.example/bob', 'https://wallet.example/bob'])
    const carol = await t.db.owner.findUniqueOrThrow({ where: { email: 'carol@example.com' }, include: { walletAddresses: true } })
    expect(carol.walletAddresses.map((w) => w.url).sort()).toEqual(['https://wallet.example/carol', 'https://wallet.example/carol2'])
    expect(await counts()).toEqual({ owners: 3, addresses: 5, links: 3 })
  })

  it('gives each new owner a working invitation link, stored only as a hash; the owner has no password until then', async () => {
    const report = await run(CSV)
    expect(report.invitations.map((i) => i.email)).toEqual(['alice@example.com', 'bob@example.com', 'carol@example.com'])
    for (const invitation of report.invitations) {
      const secret = invitation.url.split('/').pop() ?? ''
      expect(invitation.url).toMatch(/^https:\/\/auth\.example\/account\/set-password\//)
      expect(await checkPasswordLink(t.deps, 'owner', secret)).toMatchObject({ kind: 'usable', linkKind: 'invitation' })
      expect(await databaseText(t)).not.toContain(secret)
    }
    const alice = await findOwnerByEmail(t.sql, 'alice@example.com')
    expect(await verifyPassword(alice!.passwordHash, '')).toBe(false)
  })

  it('changes nothing when the same file is imported again: every row unchanged or refused as before, no new link', async () => {
    await run(CSV)
    const before = { ...(await counts()), audit: await t.db.auditLog.count() }
    const again = await run(CSV)
    expect(outcomes(again).map(([line, outcome]) => [line, outcome])).toEqual([
      [2, 'unchanged'],
      [3, 'unchanged'],
      [4, 'unchanged'],
      [5, 'refused'],
      [6, 'refused'],
      [7, 'refused'],
      [8, 'refused'],
      [9, 'refused'],
    ])
    expect(again.invitations).toEqual([])
    expect({ ...(await counts()), audit: await t.db.auditLog.count() }).toEqual(before)
  })

  it('updates an existing owner found by email in any case, adding wallet addresses and keeping the ones not in the file', async () => {
    await createOwner(t.sql, {
      email: 'alice@example.com',
      name: 'Alice',
      password: 'a long password',
      walletAddresses: ['https://wallet.example/alice'],
    })
    const report = await run(`email,name,wallet_addresses\nALICE@example.com,Alice Smith,https://wallet.example/alice-savings\n`)
    expect(outcomes(report)).toEqual([[2, 'updated', 'name; added https://wallet.example/alice-savings']])
    expect(report.invitations).toEqual([])
    const alice = await t.db.owner.findUniqueOrThrow({ where: { email: 'alice@example.com' }, include: { walletAddresses: true } })
    expect(alice.name).toBe('Alice Smith')
    expect(alice.walletAddresses.map((w) => w.url).sort()).toEqual(['https://wallet.example/alice', 'https://wallet.example/alice-savings'])
    expect(await verifyPassword(alice.passwordHash, 'a long password')).toBe(true)
  })

  it('writes nothing for a refused row, even when part of it was fine: the next rows go on', async () => {
    await createOwner(t.sql, {
      email: 'alice@example.com',
      name: 'Alice',
      password: 'a long password',
      walletAddresses: ['https://wallet.example/alice'],
    })
    await createOwner(t.sql, { email: 'bob@example.com', name: 'Bob', password: 'a long password', walletAddresses: ['https://wallet.example/bob'] })
    const before = await databaseText(t)
    const report = await run(
      [
        'email,name,wallet_addresses',
        'carol@example.com,Carol,https://wallet.example/carol https://wallet.example/alice/',
        'bob@example.com,Robert,https://wallet.example/bob-2 https://wallet.example/alice',
      ].join('\n'),
    )
    expect(outcomes(report)).toEqual([
      [2, 'refused', 'the wallet address https://wallet.example/alice already belongs to another owner'],
      [3, 'refused', 'the wallet address https://wallet.example/alice already belongs to another owner'],
    ])
    expect(await databaseText(t)).toBe(before)
    const next = await run('email,name,wallet_addresses\ncarol@example.com,Carol,https://wallet.example/carol\n')
    expect(outcomes(next)).toEqual([[2, 'created', null]])
  })

  it('refuses a wallet address above or below another owner’s, as the console does', async () => {
    await run(`email,name,wallet_addresses\nalice@example.com,Alice,https://wallet.example/alice\n`)
    const report = await run(
      `email,name,wallet_addresses\ngrace@example.com,Grace,https://wallet.example/alice/savings\nheidi@example.com,Heidi,https://wallet.example\n`,
    )
    expect(outcomes(report)).toEqual([
      [2, 'refused', 'the wallet address https://wallet.example/alice/savings overlaps https://wallet.example/alice, which belongs to another owner'],
      [3, 'refused', 'the wallet address https://wallet.example overlaps https://wallet.example/alice, which belongs to another owner'],
    ])
    expect(await counts()).toMatchObject({ owners: 1, addresses: 1 })
  })

  it('reads JSON Lines, refusing lines that are not JSON objects', async () => {
    const jsonl = [
      '{"email":"alice@example.com","name":"Alice","walletAddresses":["https://wallet.example/alice"]}',
      '',
      'not json',
      '[1,2]',
      '{"email":"bob@example.com","name":"Bob","walletAddresses":"https://wallet.example/bob"}',
      '{"email":"carol@example.com","name":"Carol","walletAddresses":[]}',
    ].join('\n')
    expect(ownerFileFormat('people.txt', jsonl)).toBe('jsonl')
    expect(outcomes(await run(jsonl, 'people.jsonl'))).toEqual([
      [1, 'created', null],
      [3, 'refused', 'the line is not valid JSON'],
      [4, 'refused', 'the line is not a JSON object'],
      [5, 'refused', 'no wallet address'],
      [6, 'refused', 'no wallet address'],
    ])
  })

  it('refuses a CSV file without the header', () => {
    expect(() => parseOwnerFile('alice@example.com,Alice,https://wallet.example/alice\n', 'csv')).toThrow(/header email,name,wallet_addresses/)
  })

  it('imports a 10,000-row file with bad rows mixed in', { timeout: 300_000 }, async () => {
    const lines = ['email,name,wallet_addresses']
    for (let i = 0; i < 10_000; i++) {
      if (i % 100 === 7) lines.push(`person${i}-at-example.com,Person ${i},https://wallet.example/p${i}`)
      else if (i % 100 === 42) lines.push(`person${i}@example.com,Person ${i},https://wallet.example/p${i - 1}`)
      else lines.push(`person${i}@example.com,Person ${i},https://wallet.example/p${i};https://pay.example/p${i}`)
    }
    const text = `${lines.join('\n')}\n`
    const report = await run(text)
    const tally = (outcome: string) => report.rows.filter((r) => r.outcome === outcome).length
    expect([tally('created'), tally('refused'), report.invitations.length]).toEqual([9_800, 200, 9_800])
    expect(await counts()).toEqual({ owners: 9_800, addresses: 19_600, links: 9_800 })
    const again = await run(text)
    expect(again.rows.filter((r) => r.outcome === 'unchanged')).toHaveLength(9_800)
    expect(again.invitations).toHaveLength(0)
  })
})
