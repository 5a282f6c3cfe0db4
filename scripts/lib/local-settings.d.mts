export function applyLocalDefaults(env: Record<string, string | undefined>, options: { tag: string; authServerUrl: string }): string[]
