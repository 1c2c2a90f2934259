/** The HTTP methods the server answers at all (others: 405 before any routing, on every surface). */
export const ALLOWED_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
