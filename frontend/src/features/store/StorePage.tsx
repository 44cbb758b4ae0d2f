// Placeholder until the feature lands.
export default function StorePage() {
  return <main><h1>StorePage</h1></main>;
}
