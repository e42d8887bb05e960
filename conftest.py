"""Repository-wide pytest settings: nothing is autouse here; fixtures live with the tests that use them."""
