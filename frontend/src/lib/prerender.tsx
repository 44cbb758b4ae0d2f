import { createContext, useContext, useSyncExternalStore, type ReactNode } from 'react';

/**
 * The landing and the store are pre-rendered at build time (src/prerender.tsx,
 * scripts/prerender.mjs) into pages whose first screen is HTML: header, hero,
 * filters. What depends on the catalogue is left as a slot that the gateway
 * fills from the data it puts into the page (gateway/src/first_screen/cards.rs),
 * so that the first product card shows before any script runs; React then
 * hydrates the page.
 *
 * Whatever else depends on the deployment is either a placeholder the gateway
 * replaces (the chat number, the shop's name: `PRERENDER_PLACEHOLDERS`) or is
 * drawn only once the page has hydrated (`AfterHydration`: the contact
 * details and the footer, below the first screen).
 */
export const PrerenderContext = createContext(false);

/**
 * The text the gateway finds and replaces in a pre-rendered page. The chat
 * number goes through `whatsappLink`, which keeps only digits.
 */
export const PRERENDER_PLACEHOLDERS = {
  whatsappNumber: '1000000000001',
  shopName: '__first_screen_shop_name__',
} as const;

/** The slots of a pre-rendered page, by the name the gateway knows them by. */
export type FirstScreenSlotName = 'featured-title' | 'featured-products' | 'store-results';

/**
 * `children` in the app; while pre-rendering, an empty `<template>` the gateway
 * replaces with the same markup React renders for the page's data.
 */
export function FirstScreenSlot({ name, children }: { name: FirstScreenSlotName; children: ReactNode }) {
  return useContext(PrerenderContext) ? <template data-first-screen-slot={name} /> : children;
}

const subscribeNever = () => () => {};

/**
 * False while pre-rendering and during hydration, true afterwards and in a
 * page rendered by the client alone: React takes the server's snapshot while
 * it hydrates (https://react.dev/reference/react/useSyncExternalStore#adding-support-for-server-rendering).
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    subscribeNever,
    () => true,
    () => false,
  );
}

/** `children` only once the page is hydrated (or rendered by the client alone). */
export function AfterHydration({ children }: { children: ReactNode }) {
  return useHydrated() ? children : null;
}
