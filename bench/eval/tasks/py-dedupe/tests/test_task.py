import unittest
from lists import dedupe

class T(unittest.TestCase):
    def test_order(self):
        self.assertEqual(dedupe([3, 1, 3, 2, 1]), [3, 1, 2])
        self.assertEqual(dedupe([]), [])
        self.assertEqual(dedupe(['b', 'a', 'b']), ['b', 'a'])
