/** Request bodies above this size are refused before parsing (413). Shared by the route wrapper and next.config. */
export const MAX_BODY_BYTES = 64 * 1024

/** JSON nested deeper than this is refused with 400 before parsing: no request of the contract comes close. */
export const MAX_JSON_DEPTH = 32
