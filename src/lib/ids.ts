/** Time-ordered UUID v7 ids: lists ordered by id are ordered by creation. */
export const newId = (): string => Bun.randomUUIDv7();

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const isUuid = (value: string): boolean => UUID.test(value);
