import { buildSchema, GraphQLError, type GraphQLSchema } from 'graphql'
import { isDatabaseUnavailable, type AdminApiOperation } from '@gnap/domain/kernel'
import type { Deps } from '@gnap/domain/protocol'
import {
  AdminApiError,
  apiAccessOf,
  apiGrant,
  apiGrants,
  apiRevokeGrant,
  apiSubjectOf,
  isConsoleError,
  type AdminApiCaller,
  type ApiGrant,
  type GrantsArgs,
} from '@gnap/domain/operator'

// The Admin API's schema (docs/admin-api.md): the grant operations of Rafiki's auth Admin API, with the same type,
// field, argument and enum names and values, so that a client generated from Rafiki's schema works unchanged. Served by
// `graphql` (the reference implementation) through `graphql-http` (admin-api-listener.ts); the resolvers are the
// domain's apiGrants, apiGrant and apiRevokeGrant, which call the console's use cases.

export const ADMIN_API_SDL = /* GraphQL */ `
  type Query {
    "A page of grants, newest first unless sortOrder is ASC. Cursors are grant ids."
    grants(
      after: String
      before: String
      first: Int
      last: Int
      filter: GrantFilter
      sortOrder: SortOrder
      "The operator tenant only: the grants of this tenant."
      tenantId: ID
    ): GrantsConnection!
    "One grant; NOT_FOUND for an unknown one, or another tenant's."
    grant(id: ID!): Grant!
  }

  type Mutation {
    "Revokes a grant and its live tokens."
    revokeGrant(input: RevokeGrantInput!): RevokeGrantMutationResponse!
  }

  type PageInfo {
    endCursor: String
    hasNextPage: Boolean!
    hasPreviousPage: Boolean!
    startCursor: String
  }

  type GrantsConnection {
    pageInfo: PageInfo!
    edges: [GrantEdge!]!
  }

  type GrantEdge {
    node: Grant!
    cursor: String!
  }

  input GrantFilter {
    "Grants with an access item on one of these wallet addresses."
    identifier: FilterString
    state: FilterGrantState
    finalizationReason: FilterFinalizationReason
  }

  input FilterString {
    in: [String!]
  }

  input FilterGrantState {
    in: [GrantState!]
    notIn: [GrantState!]
  }

  input FilterFinalizationReason {
    in: [GrantFinalization!]
    notIn: [GrantFinalization!]
  }

  input RevokeGrantInput {
    grantId: String!
  }

  interface Model {
    id: ID!
    createdAt: String!
  }

  type Grant implements Model {
    id: ID!
    "The client's wallet address; null for a client known by its key alone."
    client: String
    access: [Access!]!
    subject: Subject
    state: GrantState!
    finalizationReason: GrantFinalization
    createdAt: String!
    tenantId: ID!
  }

  type Access implements Model {
    id: ID!
    identifier: String
    type: String!
    actions: [String]!
    limits: LimitData
    createdAt: String!
  }

  type Subject {
    sub_ids: [SubjectItem!]!
  }

  type SubjectItem implements Model {
    id: ID!
    subId: String!
    subIdFormat: String!
    createdAt: String!
  }

  type LimitData {
    receiver: String
    debitAmount: PaymentAmount
    receiveAmount: PaymentAmount
    interval: String
  }

  type PaymentAmount {
    value: UInt64!
    assetCode: String!
    assetScale: UInt8!
  }

  type RevokeGrantMutationResponse {
    id: ID!
  }

  enum GrantState {
    PROCESSING
    PENDING
    APPROVED
    FINALIZED
  }

  enum GrantFinalization {
    ISSUED
    REVOKED
    REJECTED
  }

  enum SortOrder {
    ASC
    DESC
  }

  "An unsigned whole number below 256."
  scalar UInt8

  "An unsigned 64-bit whole number, written as a string of decimal digits."
  scalar UInt64
`

/** What every resolver receives: the process's deps and the signing tenant (a type, not an interface: graphql-http's context is a record). */
export type AdminApiContext = {
  deps: Deps
  caller: AdminApiCaller
}

let schema: GraphQLSchema | null = null

/** The schema, built once per process. */
export function adminApiSchema(): GraphQLSchema {
  schema ??= buildSchema(ADMIN_API_SDL)
  return schema
}

/**
 * A refusal as a GraphQL error with Rafiki's `extensions.code`; a console refusal the same way; anything else is
 * logged and answered as INTERNAL_SERVER_ERROR without its message.
 */
function graphqlError(e: unknown, deps: Deps): GraphQLError {
  if (e instanceof AdminApiError) return new GraphQLError(e.message, { extensions: { code: e.code } })
  if (isConsoleError(e)) {
    const code = e.code === 'not_found' ? 'NOT_FOUND' : e.code === 'bad_request' || e.code === 'conflict' ? 'BAD_USER_INPUT' : 'FORBIDDEN'
    return new GraphQLError(e.message, { extensions: { code } })
  }
  if (isDatabaseUnavailable(e))
    return new GraphQLError('the database is unavailable: try again shortly', { extensions: { code: 'INTERNAL_SERVER_ERROR' } })
  deps.log.error({ err: e instanceof Error ? { name: e.name, message: e.message, stack: e.stack } : String(e) }, 'admin API: internal error')
  return new GraphQLError('internal server error', { extensions: { code: 'INTERNAL_SERVER_ERROR' } })
}

/** A grant as the schema's resolvers read it: its access and subject are read only when the query asks for them. */
const graphqlGrant = (grant: ApiGrant) => ({
  ...grant,
  access: async () => apiAccessOf(await grant.detail()),
  subject: async () => apiSubjectOf(await grant.detail()),
})

async function resolving<T>(ctx: AdminApiContext, run: () => Promise<T>): Promise<T> {
  try {
    return await run()
  } catch (e) {
    throw graphqlError(e, ctx.deps)
  }
}

/** The root resolvers: each operation over the domain's Admin API use cases, as the signing tenant. */
export const adminApiRoot = {
  grants: (args: GrantsArgs, ctx: AdminApiContext) =>
    resolving(ctx, async () => {
      const page = await apiGrants(ctx.deps, ctx.caller, args)
      return { ...page, edges: page.edges.map((e) => ({ cursor: e.cursor, node: graphqlGrant(e.node) })) }
    }),
  grant: (args: { id: string }, ctx: AdminApiContext) => resolving(ctx, async () => graphqlGrant(await apiGrant(ctx.deps, ctx.caller, args.id))),
  revokeGrant: (args: { input: { grantId: string } }, ctx: AdminApiContext) =>
    resolving(ctx, () => apiRevokeGrant(ctx.deps, ctx.caller, args.input.grantId)),
}

const OPERATIONS = new Set<string>(['grants', 'grant', 'revokeGrant'])

/** The operation a request names for the metrics: its first root field, when it is one of ours. */
export function operationOfFields(fields: readonly string[]): AdminApiOperation {
  const first = fields[0]
  return first !== undefined && OPERATIONS.has(first) ? (first as AdminApiOperation) : 'other'
}
