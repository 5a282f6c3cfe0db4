import type { GnapConfig } from '../config/config'
import { serverUrl } from '../config/config'
import type { AccessItem } from '../access/access.wire'
import type { IssuedToken } from '../access-token/access-token.repo'
import type { AccessTokenJson, ContinueJson } from './grant.wire'

export function toAccessTokenJson(config: GnapConfig, token: IssuedToken, access: AccessItem[]): AccessTokenJson {
  return {
    value: token.value,
    manage: serverUrl(config, 'token', token.managementId),
    expires_in: token.expiresIn,
    access,
  }
}

export function toContinueJson(config: GnapConfig, continueId: string, continueToken: string, wait?: number): ContinueJson {
  return {
    access_token: { value: continueToken },
    uri: serverUrl(config, 'continue', continueId),
    ...(wait !== undefined ? { wait } : {}),
  }
}
