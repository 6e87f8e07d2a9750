// The `max_inputs` / `max_outputs` of a variadic operator: no upper bound. Apart from types.ts so
// that code reading it does not load zod (start-up).
export const Unbounded = 2147483647;
