// Placeholder until the feature lands.
export default function ProductsPage() {
  return <main><h1>ProductsPage</h1></main>;
}
