/** Where a placement's console page is. */
export function placementHref(id: string): string {
  return `/console/placements/${id}`;
}
