// Words the endpoint page's parts share.

export const NOT_FOUND = 'No webhook endpoint has this id. It may have been deleted.'
export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`
